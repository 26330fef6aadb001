# Arty A7-100T (xc7a100tcsg324-1): pins of the gpusched board top (`gs_top`: self-test or bridge), for Vivado.
# gpusched reports Yosys synth_xilinx figures for this board; place and route is Vivado's.
# 100 MHz oscillator.
set_property -dict { PACKAGE_PIN E3 IOSTANDARD LVCMOS33 } [get_ports clk]
create_clock -name clk -period 10.000 [get_ports clk]
# USB UART: the FPGA transmits on D10 (uart_rxd_out, the host's RX).
set_property -dict { PACKAGE_PIN D10 IOSTANDARD LVCMOS33 } [get_ports uart_tx]
# ... and receives on A9 (uart_txd_in, the host's TX; the host bridge only).
set_property -dict { PACKAGE_PIN A9 IOSTANDARD LVCMOS33 } [get_ports uart_rx]
# LEDs, active high: LD4 (H5) = PASS, LD5 (J5) = FAIL.
set_property -dict { PACKAGE_PIN H5 IOSTANDARD LVCMOS33 } [get_ports led_pass]
set_property -dict { PACKAGE_PIN J5 IOSTANDARD LVCMOS33 } [get_ports led_fail]
