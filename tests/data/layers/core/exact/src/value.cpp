#include "fpx/exact/value.h"
#include "fpx/bench/run.h"
#include "../../bench/src/private.h"
#include <QString>
