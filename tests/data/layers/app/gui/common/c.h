#pragma once
#include "pages/b/b.h"
