from ptxlint.cli import main

main()
