"""The thread model every rule family requires: what a register is as a function of the thread
(``values``), which branch conditions are correlated and which edges infeasible
(``conditions``), which threads reach each instruction (``reach``)."""
