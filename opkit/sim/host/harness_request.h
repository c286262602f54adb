// opkit simulator harness: reading a `run`/`tiling` request (README.md, "the request"): the JSON, the op it
// names, every input and output checked against the OpDef (input files loaded into GM), the attributes, the column.
#pragma once
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness_opdef.h"
#include "json.h"
#include "opkit_sim_runtime.h"  // the GM allocation table behind AscendC::GmAlloc/GmFree
#include "register/op_impl_registry.h"

namespace opkit {
namespace host {

using json::Value;

constexpr const char* kRun = "harness run";

inline std::string ReadFile(const std::string& path, const std::string& what) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(kRun, "%s: cannot read '%s': %s", what.c_str(), path.c_str(), std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

inline const Value& Need(const Value& obj, const char* key, const std::string& where) {
    const Value* v = obj.find(key);
    if (v == nullptr) fail(kRun, "%s: missing \"%s\"", where.c_str(), key);
    return *v;
}
inline int64_t Int(const Value& v, const std::string& where) {
    if (!v.is_integer()) fail(kRun, "%s: expected an integer, got %s", where.c_str(), v.type == Value::Number ? v.text.c_str() : "a non-number");
    return std::strtoll(v.text.c_str(), nullptr, 10);
}

inline gert::Shape ShapeOf(const Value& v, const std::string& where) {
    if (v.type != Value::Array) fail(kRun, "%s: shape must be a list of integers", where.c_str());
    gert::Shape s;
    if (v.items.size() > gert::Shape::kMaxDimNum) fail(kRun, "%s: %zu dimensions, at most 25", where.c_str(), v.items.size());
    for (const auto& d : v.items) {
        int64_t x = Int(d, where);
        if (x < 0) fail(kRun, "%s: negative dimension %lld", where.c_str(), static_cast<long long>(x));
        s.AppendDim(x);
    }
    return s;
}
inline std::string ShapeStr(const gert::Shape& s) {
    std::string o = "[";
    for (size_t i = 0; i < s.GetDimNum(); ++i) o += (i ? ", " : "") + std::to_string(s.GetDim(i));
    return o + "]";
}

struct Tensor {
    std::string name;
    ge::DataType dt = ge::DT_UNDEFINED;
    ge::Format fmt = ge::FORMAT_ND;
    gert::StorageShape shape;
    std::string file;
    void* gm = nullptr;  // GM allocation (inputs: filled from the file when the request is read)
    uint64_t bytes = 0;
    std::string result_file;  // an input the kernel writes in place: its bytes after the launch go here
    int ref = -1;  // an output in GE's reference form: the IR index of the input whose buffer it is
};

struct IrParam {
    std::string name;
    bool present = true;
    bool dynamic = false;
    ge::DataType dt = ge::DT_UNDEFINED;
    ge::Format fmt = ge::FORMAT_ND;
    std::vector<Tensor> tensors;
};

// GE's reference form: an output named like an input is that input's tensor (the kernel gets its buffer twice).
inline void ResolveRefs(const std::vector<IrParam>& pin, std::vector<IrParam>* pout) {
    for (auto& p : *pout) {
        Tensor& t = p.tensors[0];
        if (t.ref < 0) continue;
        t.ref = -1;
        for (size_t i = 0; i < pin.size(); ++i)
            if (pin[i].name == t.name) t.ref = static_cast<int>(i);
        if (t.ref < 0) fail(kRun, "output '%s': \"ref\" names no input of that name", t.name.c_str());
        const IrParam& in = pin[static_cast<size_t>(t.ref)];
        if (!in.present || in.dynamic)
            fail(kRun, "output '%s': its input (reference form) is %s", t.name.c_str(), in.present ? "a list" : "absent");
        if (in.dt != p.dt) fail(kRun, "output '%s' is %s, its input (reference form) %s", t.name.c_str(), DtypeName(p.dt).c_str(),
                                DtypeName(in.dt).c_str());
    }
}

inline uint64_t Bytes(const gert::Shape& s, ge::DataType dt, const std::string& where) {
    int sz = ge::GetSizeByDataType(dt);
    if (sz <= 0) fail(kRun, "%s: dtype %s has no byte size opkit can allocate", where.c_str(), DtypeName(dt).c_str());
    if (sz > ge::kDataTypeSizeBitOffset)  // packed sub-byte elements
        return (static_cast<uint64_t>(s.GetShapeSize()) * static_cast<uint64_t>(sz - ge::kDataTypeSizeBitOffset) + 7) / 8;
    return static_cast<uint64_t>(s.GetShapeSize()) * static_cast<uint64_t>(sz);
}

// GmAlloc with a name: the simulator's GM diagnostics then say which tensor an access missed.
inline void* GmAllocNamed(uint64_t bytes, const std::string& name, bool zero = true) {
    return opkit::sim::gm_alloc(bytes, name.c_str(), zero);
}

// A dynamic (list) output of a tiling-only request: "count" tensors (default 1) without files.
// A run request gives a dynamic output as a list of files (one per tensor); a tiling-only one may give its count.
inline void ReadDynamicOutput(const Value& v, const ops::OpParamDef& def, const std::string& where, IrParam* out,
                              bool tiling_only) {
    const Value* file = v.find("file");
    const bool files = file != nullptr && !file->is_null();
    if (files && file->type != Value::Array)
        fail(kRun, "%s: a dynamic (list) output takes a list of files, one per tensor", where.c_str());
    if (!files && !tiling_only) fail(kRun, "%s: a dynamic (list) output needs \"file\": a list of files", where.c_str());
    const Value* cnt = v.find("count");
    const int64_t n = files ? static_cast<int64_t>(file->items.size())
                            : cnt && !cnt->is_null() ? Int(*cnt, where + " count") : 1;
    if (n < 1 || n > 1024) fail(kRun, "%s: count %lld: a dynamic output has 1 to 1024 tensors", where.c_str(), (long long)n);
    for (int64_t k = 0; k < n; ++k) {
        Tensor t;
        t.name = def.name_ + "[" + std::to_string(k) + "]";
        t.dt = out->dt;
        t.fmt = out->fmt;
        if (files) {
            if (file->items[k].type != Value::String) fail(kRun, "%s: file[%lld] must be a path", where.c_str(), (long long)k);
            t.file = file->items[k].text;
        }
        out->tensors.push_back(t);
    }
}

// An output: its file, its reference form ("ref"), the shape the request expects (if given).
inline void ReadOutput(const Value& v, const ops::OpParamDef& def, const std::string& where, IrParam* out) {
    Tensor t;
    t.name = def.name_;
    t.dt = out->dt;
    t.fmt = out->fmt;
    t.file = Need(v, "file", where).text;
    if (const Value* ref = v.find("ref"); ref && !ref->is_null()) {
        if (ref->type != Value::String || ref->text != def.name_)
            fail(kRun, "%s: \"ref\" must name the input of the same name ('%s')", where.c_str(), def.name_.c_str());
        t.ref = 0;  // resolved to the input's index by ResolveRefs
    }
    const Value* sh = v.find("shape");
    if (sh && !sh->is_null()) {
        gert::Shape s = ShapeOf(*sh, where + " shape");
        t.shape.MutableOriginShape() = s;
        t.shape.MutableStorageShape() = s;
        t.bytes = 1;  // marks "shape given"
    }
    out->tensors.push_back(t);
}

// An input file straight into the tensor's GM allocation (no intermediate copies).
inline void LoadInputFile(Tensor* t, const gert::Shape& shape, const std::string& where) {
    FILE* f = std::fopen(t->file.c_str(), "rb");
    if (!f) fail(kRun, "%s: cannot read '%s': %s", where.c_str(), t->file.c_str(), std::strerror(errno));
    long size = -1;
    if (std::fseek(f, 0, SEEK_END) == 0) size = std::ftell(f);
    if (size < 0 || std::fseek(f, 0, SEEK_SET) != 0) fail(kRun, "%s: cannot read '%s': %s", where.c_str(), t->file.c_str(), std::strerror(errno));
    if (static_cast<uint64_t>(size) != t->bytes)
        fail(kRun, "%s: '%s' has %ld bytes; shape %s of %s needs %llu", where.c_str(), t->file.c_str(), size,
             ShapeStr(shape).c_str(), DtypeName(t->dt).c_str(), static_cast<unsigned long long>(t->bytes));
    // Large files are mapped (in trace-only mode, where data moves read nothing, not even prefaulted).
    t->gm = opkit::sim::gm_map_file(t->file.c_str(), t->bytes, ("input " + t->name).c_str(), !opkit::sim::trace_only());
    if (t->gm == nullptr) {
        t->gm = GmAllocNamed(t->bytes, "input " + t->name, /*zero=*/false);
        if (t->bytes && std::fread(t->gm, 1, t->bytes, f) != t->bytes)
            fail(kRun, "%s: reading '%s' failed", where.c_str(), t->file.c_str());
    }
    std::fclose(f);
}

// An input's tensors (a dynamic input's list): shapes, files, and their data in GM (none for a shape-only input).
inline void ReadInput(const Value& v, const ops::OpParamDef& def, const std::string& where, bool shape_only, IrParam* out) {
    const Value* file = v.find("file");
    const Value& sh = Need(v, "shape", where);
    std::vector<std::string> files;
    std::vector<gert::Shape> shapes;
    if (out->dynamic) {
        if (sh.type != Value::Array || (!shape_only && (file->type != Value::Array || file->items.size() != sh.items.size())))
            fail(kRun, "%s: a dynamic input takes a list of files and a list of shapes of the same length", where.c_str());
        for (size_t k = 0; k < sh.items.size(); ++k) {
            shapes.push_back(ShapeOf(sh.items[k], where + " shape[" + std::to_string(k) + "]"));
            files.push_back(shape_only ? std::string() : file->items[k].text);
        }
    } else {
        if (!shape_only && file->type != Value::String) fail(kRun, "%s: \"file\" must be a path or null", where.c_str());
        shapes.push_back(ShapeOf(sh, where + " shape"));
        files.push_back(shape_only ? std::string() : file->text);
    }
    for (size_t k = 0; k < files.size(); ++k) {
        Tensor t;
        t.name = def.name_ + (out->dynamic ? "[" + std::to_string(k) + "]" : "");
        t.dt = out->dt;
        t.fmt = out->fmt;
        t.shape.MutableOriginShape() = shapes[k];
        t.shape.MutableStorageShape() = shapes[k];
        t.file = files[k];
        t.bytes = Bytes(shapes[k], t.dt, where);
        const Value* rf = v.find("result_file");
        if (rf && rf->type == Value::String && !out->dynamic) t.result_file = rf->text;
        if (!shape_only) LoadInputFile(&t, shapes[k], where);  // shape only: the tiling sees the shape (a value-depend
        out->tensors.push_back(std::move(t));                   // input is refused later)
    }
}

// One parameter of the request, checked against the OpDef's. tiling_only: a tiling-only request may give an input's
// shape without its data ("file": null, "shape" given), and a dynamic (list) output as its number of tensors ("count").
inline void ReadParam(const Value& v, const ops::OpParamDef& def, bool is_input, const std::string& where, IrParam* out,
                      bool tiling_only = false) {
    out->name = def.name_;
    const Value& nm = Need(v, "name", where);
    if (nm.text != def.name_)
        fail(kRun, "%s: is named '%s'; the OpDef's %s at this position is '%s'", where.c_str(), nm.text.c_str(),
             is_input ? "input" : "output", def.name_.c_str());
    const Value* file = v.find("file");
    const Value* given_shape = v.find("shape");
    const bool no_data = file == nullptr || file->is_null();
    const bool shape_only = tiling_only && is_input && no_data && given_shape != nullptr && !given_shape->is_null();
    const bool absent = is_input && no_data && !shape_only;
    if (absent) {
        if (def.param_type_ != ops::OPTIONAL)
            fail(kRun, "%s: no file given, but '%s' is a %s input", where.c_str(), def.name_.c_str(), OptionName(def.param_type_));
        out->present = false;
        return;
    }
    if (!ParseDtype(Need(v, "dtype", where).text, &out->dt)) fail(kRun, "%s: unknown dtype '%s'", where.c_str(), v.find("dtype")->text.c_str());
    const Value* fmt = v.find("format");
    if (fmt && !fmt->is_null() && !ParseFormat(fmt->text, &out->fmt)) fail(kRun, "%s: unknown format '%s'", where.c_str(), fmt->text.c_str());
    out->dynamic = def.param_type_ == ops::DYNAMIC;
    if (!is_input && out->dynamic) {
        ReadDynamicOutput(v, def, where, out, tiling_only);
    } else if (!is_input) {
        ReadOutput(v, def, where, out);
    } else {
        ReadInput(v, def, where, shape_only, out);
    }
}

// Attribute values in OpDef order (request value, else the default), then PrivateAttr ones.
// An OpDef that declares no attribute takes them from the operator's graph IR (REG_OP) or its aclnn launch
// (OP_ATTR), neither of which opkit compiles (FlashAttentionScore is such an op): the request's attributes are
// those, in the request's (op.yaml's) order, each typed as the request says.
inline std::vector<ops::OpAttrDef> IrAttrs(const ops::OpDef& d, const Value* list) {
    std::vector<ops::OpAttrDef> out;
    if (!d.attrs_.empty() || list == nullptr || list->type != Value::Array) return out;
    for (const auto& a : list->items) {
        ops::OpAttrDef def(Need(a, "name", "request attr").text.c_str());
        def.kind_ = Need(a, "type", "request attr '" + def.name_ + "'").text;
        out.push_back(def);
    }
    return out;
}

// The request's attribute entries by name, each one the op declares.
inline std::map<std::string, const Value*> GivenAttrs(const ops::OpDef& d, const std::vector<ops::OpAttrDef>& declared,
                                                      const Value* list) {
    std::map<std::string, const Value*> given;
    if (list && !list->is_null()) {
        if (list->type != Value::Array) fail(kRun, "request: \"attrs\" must be a list");
        for (const auto& a : list->items) {
            const std::string n = Need(a, "name", "request attr").text;
            bool known = false;
            for (const auto& da : declared) known = known || da.name_ == n;
            if (!known) fail(kRun, "request attr '%s': %s has no such attribute", n.c_str(), d.type_.c_str());
            given[n] = &a;
        }
    }
    return given;
}

// One attribute's value: the request's (v), else the declared default.
inline void AddAttr(const ops::OpAttrDef& a, const Value* v, const std::string& where, gert::RuntimeAttrs* attrs) {
    auto num = [&](const Value& x) {
        if (x.type != Value::Number) fail(kRun, "request %s: expected a number", where.c_str());
        return x;
    };
    auto arr = [&](const Value& x) -> const std::vector<Value>& {
        if (x.type != Value::Array) fail(kRun, "request %s: expected a list", where.c_str());
        return x.items;
    };
    if (a.kind_ == "bool") {
        if (v && v->type != Value::Bool) fail(kRun, "request %s: expected true or false", where.c_str());
        attrs->OpkitAddBool(a.name_, v ? v->b : a.b_);
    } else if (a.kind_ == "int") {
        attrs->OpkitAddInt(a.name_, v ? Int(num(*v), "request " + where) : a.i_);
    } else if (a.kind_ == "float") {
        attrs->OpkitAddFloat(a.name_, v ? static_cast<float>(num(*v).as_double()) : a.f_);
    } else if (a.kind_ == "string") {
        if (v && v->type != Value::String) fail(kRun, "request %s: expected a string", where.c_str());
        attrs->OpkitAddString(a.name_, v ? v->text : a.s_);
    } else if (a.kind_ == "list_int") {
        std::vector<int64_t> x;
        if (v) for (const auto& e : arr(*v)) x.push_back(Int(num(e), "request " + where));
        attrs->OpkitAddListInt(a.name_, v ? x : a.li_);
    } else if (a.kind_ == "list_float") {
        std::vector<float> x;
        if (v) for (const auto& e : arr(*v)) x.push_back(static_cast<float>(num(e).as_double()));
        attrs->OpkitAddListFloat(a.name_, v ? x : a.lf_);
    } else if (a.kind_ == "list_bool") {
        std::vector<bool> x;
        if (v) for (const auto& e : arr(*v)) {
            if (e.type != Value::Bool) fail(kRun, "request %s: expected a list of true/false", where.c_str());
            x.push_back(e.b);
        }
        attrs->OpkitAddListBool(a.name_, v ? x : a.lb_);
    } else if (a.kind_ == "list_list_int") {
        std::vector<std::vector<int64_t>> x;
        if (v) for (const auto& row : arr(*v)) {
            std::vector<int64_t> r;
            for (const auto& e : arr(row)) r.push_back(Int(num(e), "request " + where));
            x.push_back(r);
        }
        attrs->OpkitAddListListInt(a.name_, v ? x : a.lli_);
    }
}

inline void BuildAttrs(const ops::OpDef& d, const ImplEntry& im, const Value& req, gert::RuntimeAttrs* attrs) {
    const Value* list = req.find("attrs");
    const std::vector<ops::OpAttrDef> ir = IrAttrs(d, list);
    const std::vector<ops::OpAttrDef>& declared = d.attrs_.empty() ? ir : d.attrs_;
    const std::map<std::string, const Value*> given = GivenAttrs(d, declared, list);
    for (const auto& a : declared) {
        const std::string where = "attribute '" + a.name_ + "'";
        if (a.kind_.empty()) fail("OpDef", "%s: %s has no type (call .Int(), .Float(), ...)", d.type_.c_str(), where.c_str());
        const Value* v = nullptr;
        auto it = given.find(a.name_);
        if (it != given.end()) {
            const Value* ty = it->second->find("type");
            if (ty && !ty->is_null() && ty->text != a.kind_)
                fail(kRun, "request %s: type '%s', the OpDef declares '%s'", where.c_str(), ty->text.c_str(), a.kind_.c_str());
            v = it->second->find("value");
            if (v && v->is_null()) v = nullptr;
        }
        if (v == nullptr && a.required_)  // an optional attribute without a default value takes its type's zero
            fail(kRun, "request: %s of %s is required and has no value", where.c_str(), d.type_.c_str());
        AddAttr(a, v, where, attrs);
    }
    for (const auto& p : im.private_attrs) {
        if (p.kind == "int") attrs->OpkitAddInt(p.name, p.i);
        else if (p.kind == "float") attrs->OpkitAddFloat(p.name, p.f);
        else if (p.kind == "bool") attrs->OpkitAddBool(p.name, p.b);
        else if (p.kind == "string") attrs->OpkitAddString(p.name, p.s);
        else if (p.kind == "list_int") attrs->OpkitAddListInt(p.name, p.li);
        else if (p.kind == "list_float") attrs->OpkitAddListFloat(p.name, p.lf);
    }
}

// One request as the harness reads it: the JSON, the op it names, and its tensors checked against the OpDef.
struct Request {
    std::string path;
    bool tiling_only = false;  // `harness tiling`: no launch
    Value json;
    std::string op_type;
    OpInfo* op = nullptr;
    bool trace_only = false;
    std::vector<const ops::OpParamDef*> ins, outs;  // the OpDef's parameters in force for the chip
    std::vector<IrParam> pin, pout;
    std::vector<Tensor*> out_inst;  // every output tensor (a dynamic output has several in a tiling-only request)
    int column = -1;                // the OpDef column the dtypes and formats match
};

// The request file as JSON, the OpDef it names, and that op's registrations (no conflicting functions).
inline void ReadRequest(const std::string& path, bool tiling_only, Request* r) {
    r->path = path;
    r->tiling_only = tiling_only;
    const std::string text = ReadFile(path, "request");
    try {
        r->json = json::parse(text);
    } catch (const std::exception& e) {
        fail(kRun, "%s: not valid JSON: %s", path.c_str(), e.what());
    }
    if (r->json.type != Value::Object) fail(kRun, "%s: the request must be a JSON object", path.c_str());
    r->op_type = Need(r->json, "op_type", path).text;
    for (auto& o : Ops())
        if (o.def.type_ == r->op_type) r->op = &o;
    if (r->op == nullptr) {
        std::string have;
        for (auto& o : Ops()) have += (have.empty() ? "" : ", ") + o.def.type_;
        fail(kRun, "%s: no OpDef registered for op type '%s' (OP_ADD registered: %s)", path.c_str(), r->op_type.c_str(),
             have.empty() ? "none" : have.c_str());
    }
    const ImplEntry& im = *r->op->impl;
    for (const auto* c : {&im.infer_shape.conflict, &im.infer_dtype.conflict, &im.tiling.conflict, &im.tiling_parse.conflict})
        if (!c->empty()) fail("registration", "%s: %s", r->op_type.c_str(), c->c_str());
}

// The request's inputs and outputs against the OpDef's parameters for the chip's SoC key; the trace-only
// switch is set first (an input file of a trace-only run is mapped without being read).
inline void ReadTensors(Request* r, const std::string& soc_key) {
    const std::string& path = r->path;
    ParamsFor(r->op->def, soc_key, &r->ins, &r->outs);
    const Value& rin = Need(r->json, "inputs", path);
    const Value& rout = Need(r->json, "outputs", path);
    if (rin.type != Value::Array || rin.items.size() != r->ins.size())
        fail(kRun, "%s: %zu inputs given, %s has %zu (%s)", path.c_str(), rin.items.size(), r->op_type.c_str(), r->ins.size(),
             "absent optional inputs are listed with \"file\": null");
    if (rout.type != Value::Array || rout.items.size() != r->outs.size())
        fail(kRun, "%s: %zu outputs given, %s has %zu", path.c_str(), rout.items.size(), r->op_type.c_str(), r->outs.size());
    r->pin.resize(r->ins.size());
    r->pout.resize(r->outs.size());
    // Trace-only mode: bookkeeping, checks and the trace without arithmetic or data bytes.
    if (const Value* to = r->json.find("trace_only")) {
        if (to->type == Value::Bool) r->trace_only = to->b;
        else if (!to->is_null()) fail(kRun, "%s: \"trace_only\" must be true, false or null", path.c_str());
    }
    opkit::sim::set_trace_only(r->trace_only);
    for (size_t i = 0; i < r->ins.size(); ++i)
        ReadParam(rin.items[i], *r->ins[i], true, "input '" + r->ins[i]->name_ + "'", &r->pin[i], r->tiling_only);
    for (size_t i = 0; i < r->outs.size(); ++i)
        ReadParam(rout.items[i], *r->outs[i], false, "output '" + r->outs[i]->name_ + "'", &r->pout[i], r->tiling_only);
    ResolveRefs(r->pin, &r->pout);
    for (auto& p : r->pout)
        for (auto& t : p.tensors) r->out_inst.push_back(&t);
}

// The OpDef column whose dtypes and formats the request's present tensors have.
inline void MatchColumn(Request* r) {
    std::vector<const ops::OpParamDef*> all(r->ins);
    all.insert(all.end(), r->outs.begin(), r->outs.end());
    Columns cols = ExpandColumns(r->op_type, all);
    auto param = [&](size_t i) -> const IrParam& { return i < r->ins.size() ? r->pin[i] : r->pout[i - r->ins.size()]; };
    for (size_t k = 0; k < cols.n && r->column < 0; ++k) {
        bool ok = true;
        for (size_t i = 0; i < all.size() && ok; ++i) {
            const IrParam& p = param(i);
            if (!p.present) continue;
            ok = cols.dt[i][k] == p.dt && cols.fmt[i][k] == p.fmt;
        }
        if (ok) r->column = static_cast<int>(k);
    }
    if (r->column < 0) {
        std::string got;
        for (size_t i = 0; i < all.size(); ++i) {
            const IrParam& p = param(i);
            if (p.present) got += (got.empty() ? "" : ", ") + p.name + "=" + DtypeName(p.dt) + "/" + FormatName(p.fmt);
        }
        fail("OpDef", "%s: the request's dtypes/formats (%s) match none of the %zu DataType/Format columns", r->op_type.c_str(),
             got.c_str(), cols.n);
    }
}

}  // namespace host
}  // namespace opkit
