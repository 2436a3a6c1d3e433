#include "fpx/bench/run.h"
#include "pages/page.h"
