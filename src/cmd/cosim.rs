pub fn run(_a: CosimArgs) -> anyhow::Result<std::process::ExitCode> { todo!() }
#[derive(clap::Args)] pub struct CosimArgs {}
