"""numba options saying whether a function runs with numba's runtime (reference counting).

The hot kernels run without it (``**NO_RUNTIME``): the arrays they pass around then cost
no atomic reference counts.  A function called from such a kernel inherits that setting
unless it names its own, so each does: ``**NO_RUNTIME`` where it allocates nothing and
returns no array, ``**RUNTIME`` where it allocates (``batched.runtime_check`` lists any
function that inherited it).  Spelled as dicts because numba's type stubs do not know
the option."""
from typing import Any, Dict

NO_RUNTIME: Dict[str, Any] = {"_nrt": False}
RUNTIME: Dict[str, Any] = {"_nrt": True}
