#include "pages/b/b.h"
#include "common/c.h"
