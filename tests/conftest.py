import sys
from pathlib import Path

# The helpers next to the tests (ptx_tools) are imported by plain name.
sys.path.insert(0, str(Path(__file__).resolve().parent))
