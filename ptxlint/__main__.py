from ptxlint.cli import run

run()
