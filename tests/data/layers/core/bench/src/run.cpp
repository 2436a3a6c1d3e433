#include "fpx/exact/value.h"
#include "fpx/bench/run.h"
