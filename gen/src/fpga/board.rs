//! The boards `gpusched fpga` targets: device, clock, constraint file (in `constraints/`) and
//! the board top (`gs_top`) that puts a self-test wrapper on the board's pins.

/// An FPGA family, which fixes the tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Lattice iCE40 (Yosys `synth_ice40`, `nextpnr-ice40`, `icepack`).
    Ice40,
    /// Lattice ECP5 (Yosys `synth_ecp5`, `nextpnr-ecp5`, `ecppack`; from YoWASP when not native).
    Ecp5,
    /// Xilinx 7-series: Yosys `synth_xilinx` figures only (place and route is Vivado's).
    Xilinx7,
}

/// One board.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    /// Name on the command line and folder in `constraints/`.
    pub name: &'static str,
    /// What it is.
    pub title: &'static str,
    /// FPGA family.
    pub family: Family,
    /// nextpnr's device and package options.
    pub device_args: &'static [&'static str],
    /// nextpnr's options for a large design: `(cell type, count above which a design is
    /// large, options)`. On the ECP5, router2 above 20,000 LUT4s: router1 (the default, the
    /// better Fmax on the smaller modules) ran for over an hour on ELF's 62,000 without
    /// finishing, router2 routed it in 5 minutes.
    pub large_pnr: Option<(&'static str, u64, &'static [&'static str])>,
    /// Board oscillator, MHz (the top runs the self-test at this clock).
    pub clock_mhz: u32,
    /// Constraint file inside `constraints/<name>/`, and its text.
    pub constraints: &'static str,
    /// The constraint file's text (the binary carries it).
    pub constraints_text: &'static str,
    /// The LEDs light when driven low.
    pub leds_active_low: bool,
    /// The board has the `btn_n` button (active low) that re-runs the test.
    pub button: bool,
    /// The self-test registers the module's inputs in fabric flip-flops after the stimulus
    /// ROM (the wrapper's `INPUT_REG`; up to [`MAX_REGISTERED_INPUT_BITS`], see
    /// [`Board::input_reg`]). On the ECP5 the block RAM's clock-to-out otherwise starts most
    /// critical paths (`warp_arbiter_gto_fermi`: 65.0 MHz without, 97.0 with); on the iCE40
    /// no critical path started at the ROM, and the flip-flops cost logic cells
    /// (`locality_degree_base_proto`'s 1,130 input bits: 104% of the UP5K with them).
    pub register_inputs: bool,
    /// Per synthesized cell type (Yosys `stat`), how many the device has; checked before
    /// place and route, which takes minutes to fail on a design that cannot fit.
    pub capacity: &'static [(&'static str, &'static [&'static str], u64)],
}

/// Every board, in the order `--help` lists them.
pub const BOARDS: [Board; 3] = [
    Board {
        name: "icebreaker",
        title: "iCEBreaker (iCE40UP5K-SG48, 12 MHz)",
        family: Family::Ice40,
        device_args: &["--up5k", "--package", "sg48"],
        large_pnr: None,
        clock_mhz: 12,
        constraints: "icebreaker.pcf",
        constraints_text: include_str!("../../../constraints/icebreaker/icebreaker.pcf"),
        leds_active_low: true,
        button: true,
        register_inputs: false,
        capacity: &[
            ("logic cells (LUT4)", &["SB_LUT4"], 5280),
            ("block RAMs (4 kbit)", &["SB_RAM40_4K"], 30),
            ("DSPs", &["SB_MAC16"], 8),
        ],
    },
    Board {
        name: "ulx3s",
        title: "ULX3S (ECP5 LFE5U-85F-6BG381C, 25 MHz)",
        family: Family::Ecp5,
        device_args: &["--85k", "--package", "CABGA381"],
        large_pnr: Some(("LUT4", 20_000, &["--router", "router2"])),
        clock_mhz: 25,
        constraints: "ulx3s.lpf",
        constraints_text: include_str!("../../../constraints/ulx3s/ulx3s.lpf"),
        leds_active_low: false,
        button: false,
        register_inputs: true,
        capacity: &[
            ("LUT4s", &["LUT4"], 83_640),
            ("flip-flops", &["TRELLIS_FF"], 83_640),
            ("block RAMs (DP16KD)", &["DP16KD"], 208),
            ("DSPs (MULT18X18D)", &["MULT18X18D"], 156),
        ],
    },
    Board {
        name: "arty",
        title: "Arty A7-100T (xc7a100tcsg324-1, 100 MHz; Yosys figures only)",
        family: Family::Xilinx7,
        device_args: &[],
        large_pnr: None,
        clock_mhz: 100,
        constraints: "arty.xdc",
        constraints_text: include_str!("../../../constraints/arty/arty.xdc"),
        leds_active_low: false,
        button: false,
        register_inputs: true,
        capacity: &[
            (
                "LUTs",
                &["LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"],
                63_400,
            ),
            ("block RAMs (RAMB36)", &["RAMB36E1"], 135),
            ("DSPs", &["DSP48E1"], 240),
        ],
    },
];

/// The board named `name`.
pub fn board(name: &str) -> Option<&'static Board> {
    BOARDS.iter().find(|b| b.name == name)
}

/// The widest module input (bits per cycle) a board top registers after the ROM: wider ones
/// are fed straight from the ROM's read register. `locality_degree_base_fermi`'s 3,370
/// input flip-flops crowd the middle of the ECP5 where its adder trees are already congested:
/// with them router2's overuse stayed near 8,000 wires (`--no-tmdriv --seed 2`, 15
/// iterations, 36 minutes), without them the same options route it; its critical path is
/// inside the module either way.
pub const MAX_REGISTERED_INPUT_BITS: u32 = 2048;

/// The UART's baud rate on every board.
pub const BAUD: u32 = 115_200;

impl Board {
    /// Clocks per UART bit at [`BAUD`] (12 MHz: 104, 0.2% fast).
    pub fn clks_per_bit(&self) -> u32 {
        (self.clock_mhz * 1_000_000 + BAUD / 2) / BAUD
    }

    /// Whether this board's top registers the inputs of a module with `in_bits` input bits
    /// per cycle (the wrapper's `INPUT_REG`): [`Board::register_inputs`] and no wider than
    /// [`MAX_REGISTERED_INPUT_BITS`].
    pub fn input_reg(&self, in_bits: u32) -> bool {
        self.register_inputs && in_bits <= MAX_REGISTERED_INPUT_BITS
    }

    /// The board top `gs_top` around `wrapper` (a `<m>_selftest`) reading `rom` (a path
    /// relative to where the tools run), with the wrapper's `INPUT_REG` set to `input_reg`
    /// ([`Board::input_reg`]): a power-on reset (and the button, if any, re-runs the test),
    /// the UART at [`BAUD`], a PASS and a FAIL LED lit once the verdict is known.
    pub fn top(&self, wrapper: &str, rom: &str, input_reg: bool) -> String {
        let on = if self.leds_active_low { "!" } else { "" };
        self.frame(
            &format!("the self-test `{wrapper}`"),
            "gpusched fpga",
            "",
            "holds the test in reset",
            &format!(
                "    wire done, pass;\n\
                 \x20   {wrapper} #(\n\
                 \x20       .ROM_FILE(\"{rom}\"),\n\
                 \x20       .CLKS_PER_BIT(16'd{clks}),\n\
                 \x20       .REPORT_EVERY_LOG2(24),\n\
                 \x20       .INPUT_REG({input_reg})\n\
                 \x20   ) selftest (\n\
                 \x20       .clk(clk),\n\
                 \x20       .rst(!por[3]),\n\
                 \x20       .inject_fault(1'b0),\n\
                 \x20       .done(done),\n\
                 \x20       .pass(pass),\n\
                 \x20       .signature(),\n\
                 \x20       .uart_tx(uart_tx)\n\
                 \x20   );\n\
                 \x20   assign led_pass = {on}(done && pass);\n\
                 \x20   assign led_fail = {on}(done && !pass);\n",
                clks = self.clks_per_bit(),
                input_reg = input_reg as u8,
            ),
        )
    }

    /// The board top `gs_top` around `<module>_bridge`: a power-on reset (and the button, if
    /// any, resets the bridge), the UART at [`BAUD`] both ways, the PASS LED lit while the
    /// bridge's status is clear, the FAIL LED once an error bit is set (a framing error, an
    /// unknown command, a timeout; reading the status register clears it).
    pub fn bridge_top(&self, module: &str) -> String {
        let on = if self.leds_active_low { "!" } else { "" };
        self.frame(
            &format!("the host bridge `{module}_bridge`"),
            "gpusched fpga --design bridge",
            "    input  wire uart_rx,\n",
            "resets the bridge",
            &format!(
                "    wire [2:0] status;\n\
                 \x20   {module}_bridge #(\n\
                 \x20       .CLKS_PER_BIT(16'd{clks})\n\
                 \x20   ) bridge (\n\
                 \x20       .clk(clk),\n\
                 \x20       .rst(!por[3]),\n\
                 \x20       .uart_rx(uart_rx),\n\
                 \x20       .uart_tx(uart_tx),\n\
                 \x20       .status(status)\n\
                 \x20   );\n\
                 \x20   assign led_pass = {on}(por[3] && status == 3'd0);\n\
                 \x20   assign led_fail = {on}(status != 3'd0);\n",
                clks = self.clks_per_bit(),
            ),
        )
    }

    /// `gs_top` with `body` inside: the clock, the button (if the board has one; pressing it
    /// `button_does`), `inputs`, the UART output and the two LEDs, and the power-on reset
    /// `por` (high bit set 8 cycles after configuration or a button press).
    fn frame(&self, what: &str, by: &str, inputs: &str, button_does: &str, body: &str) -> String {
        let button_port = if self.button {
            "    input  wire btn_n,\n"
        } else {
            ""
        };
        let button_logic = if self.button {
            format!(
                "    // The button (active low, synchronized) {button_does}.\n    reg [1:0] btn_sync = 2'b11;\n    always @(posedge clk) btn_sync <= {{btn_sync[0], btn_n}};\n    wire restart = !btn_sync[1];\n"
            )
        } else {
            "    wire restart = 1'b0;\n".to_string()
        };
        format!(
            "// gs_top: {what} on the {title}.\n\
             // Generated by `{by}`; pins in constraints/{name}/{file}.\n\
             module gs_top (\n\
             \x20   input  wire clk,\n\
             {button_port}\
             {inputs}\
             \x20   output wire uart_tx,\n\
             \x20   output wire led_pass,\n\
             \x20   output wire led_fail\n\
             );\n\
             {button_logic}\
             \x20   // Power-on reset: 8 cycles after configuration (the registers' initial values).\n\
             \x20   reg [3:0] por = 4'd0;\n\
             \x20   always @(posedge clk) begin\n\
             \x20       if (restart) por <= 4'd0;\n\
             \x20       else if (!por[3]) por <= por + 4'd1;\n\
             \x20   end\n\
             {body}\
             endmodule\n",
            title = self.title,
            name = self.name,
            file = self.constraints,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ecp5_tops_register_inputs_up_to_the_limit_the_ice40_top_never() {
        let (ulx3s, ice) = (board("ulx3s").unwrap(), board("icebreaker").unwrap());
        assert!(ulx3s.input_reg(96) && ulx3s.input_reg(MAX_REGISTERED_INPUT_BITS));
        assert!(!ulx3s.input_reg(3370));
        assert!(!ice.input_reg(32));
        assert!(ulx3s
            .top("m_selftest", "m.rom.hex", true)
            .contains(".INPUT_REG(1)"));
        assert!(ulx3s
            .top("m_selftest", "m.rom.hex", false)
            .contains(".INPUT_REG(0)"));
    }

    #[test]
    fn every_board_has_its_constraints_and_pins_for_the_top() {
        for b in &BOARDS {
            let top = b.top("x_selftest", "x.rom.hex", b.input_reg(32));
            for port in ["clk", "uart_tx", "led_pass", "led_fail"] {
                assert!(b.constraints_text.contains(port), "{}: {port}", b.name);
                assert!(top.contains(&format!("wire {port}")), "{}: {port}", b.name);
            }
            let bridge = b.bridge_top("x");
            for port in ["clk", "uart_rx", "uart_tx", "led_pass", "led_fail"] {
                assert!(b.constraints_text.contains(port), "{}: {port}", b.name);
                assert!(
                    bridge.contains(&format!("wire {port}")),
                    "{}: {port}",
                    b.name
                );
            }
            assert!(bridge.contains("x_bridge #("));
            assert_eq!(b.button, b.constraints_text.contains("btn_n"), "{}", b.name);
            assert_eq!(board(b.name).unwrap().name, b.name);
        }
        assert!(board("de10").is_none());
    }

    #[test]
    fn uart_divisors_are_within_one_percent() {
        let clks: Vec<u32> = BOARDS.iter().map(Board::clks_per_bit).collect();
        assert_eq!(clks, vec![104, 217, 868]);
        for b in &BOARDS {
            let baud = b.clock_mhz as f64 * 1e6 / b.clks_per_bit() as f64;
            assert!(
                (baud / BAUD as f64 - 1.0).abs() < 0.01,
                "{}: {baud}",
                b.name
            );
        }
    }
}
