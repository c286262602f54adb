// opkit simulator (host side): OP_ADD and everything an op_host file needs (OpDef DSL, contexts,
// registration of InferShape/InferDataType/tiling functions).
#pragma once
#include "register/op_def.h"
#include "register/op_def_factory.h"
#include "register/op_impl_registry.h"

#define OP_ADD(opType, ...)                                                                                     \
    static int g_opkit_##opType##_added __attribute__((unused)) = ::ops::OpDefFactory::OpDefRegister(          \
        #opType, [](const char* name) -> ::ops::OpDef { return opType(name); })
