pub fn run(_a: RegressArgs) -> anyhow::Result<std::process::ExitCode> { todo!() }
#[derive(clap::Args)] pub struct RegressArgs {}
