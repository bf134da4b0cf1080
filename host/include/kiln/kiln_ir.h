// The advanced part of the embedding API: Session::BuildModel(Model&, ...) compiles a model held in Kiln's IR
// (built by hand, or imported by the application) in place. The IR is the host's own (host/ir/); unlike
// kiln/kiln.h it is not a stable interface and may change between releases.
#pragma once

#include "ir/model.h"
#include "kiln/kiln.h"
