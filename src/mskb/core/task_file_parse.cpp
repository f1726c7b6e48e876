// Reading a whole task file (mskb/core/task_file.hpp): the TOML parsed, then read in stages into the
// TaskFile and its model (task_file_model.hpp), every expression checked at every declared shape,
// and the TaskSpec's functions bound to the model and the host reference (task_file_reference.hpp).
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mskb/core/task_file.hpp"
#include "mskb/util/text.hpp"
#include "task_file_model.hpp"
#include "task_file_reader.hpp"
#include "task_file_reference.hpp"

namespace fs = std::filesystem;

namespace mskb {

#if MSKB_HAVE_TOMLPP

namespace {

using namespace task_model;

// What the stages share while one file is read.
struct Parse {
  const Reader& rd;
  const toml::table& root;
  TaskFile& tf;
  std::shared_ptr<Model> model;
  fs::path dir;  // the file's folder (absolute): files it names are relative to it
  std::map<std::string, std::pair<SparsePart, const toml::node*>> sparse_names;  // [sparse]'s parameters
  std::map<std::string, std::vector<const toml::node*>> shape_nodes;             // per sweep, for errors
  std::shared_ptr<TaskFileReference> ref;                                         // null with a reference kernel
};

// Name, category, semantics, shape variables, precisions and the run settings.
void read_identity(Parse& state) {
  const Reader& rd = state.rd;
  const toml::table& root = state.root;
  TaskFile& tf = state.tf;
  TaskSpec& spec = state.tf.spec;
  Model* const m = state.model.get();
  const fs::path& dir = state.dir;
  // name, category, semantics
  spec.name = rd.string(*rd.need(root, "", "name", "the task's name: the entry point's symbol"), "name");
  if (!is_identifier(spec.name)) rd.fail(root.get("name")->source(), "name", "'" + spec.name + "' is not a C identifier (it is the entry point's name)");
  spec.category = rd.opt_string(root, "", "category").value_or("user");
  if (!is_identifier(spec.category)) rd.fail(root.get("category")->source(), "category", "'" + spec.category + "' is not a plain word");
  spec.semantics = rd.string(*rd.need(root, "", "semantics", "what the entry point computes"), "semantics");
  if (trim(spec.semantics).empty()) rd.fail(root.get("semantics")->source(), "semantics", "is empty");
  spec.folder = dir.string();

  // dims
  const toml::node* dims_node = rd.need(root, "", "dims", "the shape variables, e.g. [\"M\", \"N\"]");
  m->dims = rd.strings(*dims_node, "dims");
  if (m->dims.empty()) rd.fail(dims_node->source(), "dims", "needs at least one shape variable");
  for (const auto& d : m->dims) {
    if (!is_identifier(d)) rd.fail(dims_node->source(), "dims", "'" + d + "' is not an identifier");
    if (std::count(m->dims.begin(), m->dims.end(), d) > 1) rd.fail(dims_node->source(), "dims", "'" + d + "' is listed twice");
    if (std::find(kReserved.begin(), kReserved.end(), d) != kReserved.end())
      rd.fail(dims_node->source(), "dims", "'" + d + "' is a reserved variable name (" + join(kReserved, ", ") + ")");
  }
  m->vars = m->dims;

  // precisions
  tf.precisions = {Precision::fp32, Precision::bf16};
  if (const toml::node* n = root.get("precisions")) {
    tf.precisions.clear();
    for (const auto& s : rd.strings(*n, "precisions")) {
      if (s != "fp32" && s != "bf16") rd.fail(n->source(), "precisions", "unknown precision '" + s + "' (fp32, bf16)");
      const Precision p = parse_precision(s);
      if (std::find(tf.precisions.begin(), tf.precisions.end(), p) == tf.precisions.end()) tf.precisions.push_back(p);
    }
    if (tf.precisions.empty()) rd.fail(n->source(), "precisions", "needs fp32, bf16 or both");
  }

  if (const toml::node* n = root.get("seeds")) {
    spec.seeds = static_cast<int>(rd.integer(*n, "seeds"));
    if (spec.seeds < 3 || spec.seeds > 100) rd.fail(n->source(), "seeds", "must be between 3 and 100");
  }
  if (const toml::node* n = root.get("call_timeout_s")) {
    spec.call_timeout_s = rd.number(*n, "call_timeout_s");
    if (!(spec.call_timeout_s > 0)) rd.fail(n->source(), "call_timeout_s", "must be positive");
  }
  if (const toml::node* n = root.get("random_shapes")) spec.random_shapes_ok = rd.boolean(*n, "random_shapes");
}

// [sparse]: a CSR matrix filling three parameters; adds nnz and row_nnz to the variables.
void read_sparse(Parse& state) {
  const Reader& rd = state.rd;
  const toml::table& root = state.root;
  Model* const m = state.model.get();
  if (const toml::node* n = root.get("sparse")) {
    const toml::table& t = rd.table(*n, "sparse");
    rd.check_keys(t, "sparse", {"format", "rows", "cols", "density", "skewed", "row_ptr", "col_idx", "values"});
    const std::string format = rd.string(*rd.need(t, "sparse", "format", "csr"), "sparse.format");
    if (format != "csr") rd.fail(t.get("format")->source(), "sparse.format", "format '" + format + "' is not supported yet (csr)");
    m->sparse.present = true;
    m->sparse.rows = rd.expr(*rd.need(t, "sparse", "rows", "an expression over dims"), "sparse.rows", m->dims);
    m->sparse.cols = rd.expr(*rd.need(t, "sparse", "cols", "an expression over dims"), "sparse.cols", m->dims);
    m->sparse.density = rd.expr(*rd.need(t, "sparse", "density", "the share of stored entries per row, e.g. 0.01"), "sparse.density", m->dims);
    m->sparse.skewed = rd.opt_expr(t, "sparse", "skewed", m->dims);
    const std::pair<const char*, SparsePart> parts[] = {
        {"row_ptr", SparsePart::row_ptr}, {"col_idx", SparsePart::col_idx}, {"values", SparsePart::values}};
    for (const auto& [key, part] : parts) {
      const toml::node* k = rd.need(t, "sparse", key, "the name of the parameter it fills");
      const std::string pname = rd.string(*k, std::string("sparse.") + key);
      if (state.sparse_names.count(pname)) rd.fail(k->source(), std::string("sparse.") + key, "'" + pname + "' is named twice");
      state.sparse_names[pname] = {part, k};
    }
    m->vars.push_back("nnz");
    m->vars.push_back("row_nnz");
  }
  m->cost_vars = m->vars;
  m->cost_vars.push_back("real_bytes");
}

// [[params]], in signature order.
void read_params(Parse& state) {
  const Reader& rd = state.rd;
  const toml::table& root = state.root;
  TaskFile& tf = state.tf;
  TaskSpec& spec = state.tf.spec;
  Model* const m = state.model.get();
  const toml::node* params_node = rd.need(root, "", "params", "the entry point's parameters, [[params]] tables in signature order");
  if (!params_node->is_array_of_tables()) rd.fail(params_node->source(), "params", "expected [[params]] tables, got " + type_name(*params_node));
  const toml::array& params = *params_node->as_array();
  if (params.empty()) rd.fail(params_node->source(), "params", "needs at least one parameter");
  for (const auto& [pname, part] : state.sparse_names) {
    bool found = false;
    for (std::size_t i = 0; i < params.size(); ++i)
      if (const toml::table* t = params[i].as_table())
        if (const toml::node* n = t->get("name"); n && n->is_string() && unshield_toml(n->as_string()->get()) == pname) found = true;
    if (!found) rd.fail(part.second->source(), "sparse", "'" + pname + "' is not a parameter");
  }
  bool has_output = false;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string ppath = "params[" + std::to_string(i) + "]";
    const toml::table& t = *params[i].as_table();
    ParamModel q;
    read_param(rd, t, ppath, m->vars, q);
    for (const auto& other : m->params)
      if (other.param.name == q.param.name) rd.fail(t.get("name")->source(), ppath + ".name", "'" + q.param.name + "' is already a parameter");
    const auto sp = state.sparse_names.find(q.param.name);
    if (sp != state.sparse_names.end()) {
      q.sparse = sp->second.first;
      if (!q.param.is_buffer || q.param.role != Role::in)
        rd.fail(t.source(), ppath, "'" + q.param.name + "' is filled by [sparse]: it must be a buffer with role = \"in\"");
      if (q.length.given) rd.fail(t.get("length")->source(), ppath + ".length", "the length of '" + q.param.name + "' is set by [sparse] (remove it)");
      if (t.get("init")) rd.fail(t.get("init")->source(), ppath + ".init", "'" + q.param.name + "' is filled by [sparse] (remove init)");
      const bool index = q.sparse != SparsePart::values;
      if (index ? q.param.elem != Elem::i32 : elem_is_integer(q.param.elem))
        rd.fail(t.get("type")->source(), ppath + ".type",
                index ? "'" + q.param.name + "' holds CSR indices: type = \"int32\"" : "'" + q.param.name + "' holds CSR values: fp32, fp16, bf16 or real");
      const std::size_t idx = m->params.size();
      (q.sparse == SparsePart::row_ptr ? m->sparse.row_ptr : q.sparse == SparsePart::col_idx ? m->sparse.col_idx : m->sparse.values) = idx;
      state.sparse_names.erase(sp);
    } else if (q.param.is_buffer) {
      if (!q.length.given) rd.fail(t.source(), ppath + ".length", "missing (the number of elements, an expression over dims)");
      const bool input = q.param.role == Role::in || q.param.role == Role::inplace;
      if (input && q.init.dist == Dist::none) {
        if (elem_is_integer(q.param.elem))
          rd.fail(t.source(), ppath + ".init", std::string("missing: an ") + to_string(q.param.elem) +
                                                   " input needs init = {dist = \"int_uniform\", lo = ..., hi = ...} or constant");
        q.init.dist = Dist::uniform;  // the default input: U(-1, 1)
        q.init.a = Field{Expr::constant_int(-1), rd.where(t.source(), ppath + ".init"), true};
        q.init.b = Field{Expr::constant_int(1), rd.where(t.source(), ppath + ".init"), true};
      }
    }
    if (q.param.is_buffer && q.param.role != Role::in) has_output = true;
    if (q.param.is_buffer && q.param.elem == Elem::real && rd.string(*t.get("type"), ppath + ".type") == "bf16" &&
        !(tf.precisions.size() == 1 && tf.precisions[0] == Precision::bf16))
      rd.fail(t.get("type")->source(), ppath + ".type",
              "a bf16 buffer exists only in the _bf16 entry point: set precisions = [\"bf16\"], or use real (float in fp32, bf16 in bf16)");
    spec.params.push_back(q.param);
    m->params.push_back(std::move(q));
  }
  if (!has_output) rd.fail(params_node->source(), "params", "no output: at least one buffer needs role out, inout or accumulate");
}

// [sweeps]: paper, heldout and large shapes.
void read_sweeps(Parse& state) {
  const Reader& rd = state.rd;
  const toml::table& root = state.root;
  TaskSpec& spec = state.tf.spec;
  Model* const m = state.model.get();
  const toml::table& sweeps = rd.table(*rd.need(root, "", "sweeps", "paper, heldout and large shape lists"), "sweeps");
  rd.check_keys(sweeps, "sweeps", {"paper", "heldout", "large"});
  for (const char* which : {"paper", "heldout", "large"}) {
    const std::string key = std::string("sweeps.") + which;
    const toml::node* n = rd.need(sweeps, "sweeps", which, "a list of shapes such as [{ M = 1024, N = 512 }]");
    if (!n->is_array()) rd.fail(n->source(), key, "expected a list of shapes, got " + type_name(*n));
    const toml::array& list = *n->as_array();
    if (list.empty()) rd.fail(n->source(), key, "needs at least one shape");
    std::vector<Shape>& out_shapes = which == std::string("paper") ? spec.paper : which == std::string("heldout") ? spec.heldout : spec.large;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string skey = key + "[" + std::to_string(i) + "]";
      const toml::table& st = rd.table(list[i], skey);
      rd.check_keys(st, skey, m->dims);
      Shape s;
      for (const auto& d : m->dims) {
        const toml::node* v = st.get(d);
        if (!v) rd.fail(st.source(), skey, "missing shape variable '" + d + "' (dims: " + join(m->dims, ", ") + ")");
        const int64_t x = v->is_integer() ? v->as_integer()->get() : [&] {
          const Field f = rd.expr(*v, skey + "." + d, {});
          try {
            return f.expr.eval_int({});
          } catch (const ExprError& e) {
            rd.fail(v->source(), skey + "." + d, e.what());
          }
        }();
        if (x < 0) rd.fail(v->source(), skey + "." + d, "a shape variable cannot be negative (" + std::to_string(x) + ")");
        s.dims.push_back({d, x});
      }
      for (std::size_t j = 0; j < out_shapes.size(); ++j)
        if (out_shapes[j] == s) rd.fail(st.source(), skey, "shape " + s.str() + " is listed twice");
      if (which == std::string("heldout"))
        for (const auto& p : spec.paper)
          if (p == s) rd.fail(st.source(), skey, "shape " + s.str() + " is also in sweeps.paper (held-out shapes must differ)");
      out_shapes.push_back(s);
      state.shape_nodes[which].push_back(&list[i]);
    }
  }
}

// [tolerance].
void read_tolerance(Parse& state) {
  const Reader& rd = state.rd;
  const toml::table& root = state.root;
  TaskFile& tf = state.tf;
  Model* const m = state.model.get();
  const toml::table& tol = rd.table(*rd.need(root, "", "tolerance", "atol and rtol: |out - ref| <= atol + rtol*|ref|"), "tolerance");
  rd.check_keys(tol, "tolerance", {"atol", "rtol", "fp32", "bf16"});
  auto read_tol = [&](const toml::table& tt, const std::string& tpath) {
    rd.check_keys(tt, tpath, {"atol", "rtol"});
    std::pair<Field, Field> f{rd.opt_expr(tt, tpath, "atol", m->vars), rd.opt_expr(tt, tpath, "rtol", m->vars)};
    if (!f.first.given && !f.second.given) rd.fail(tt.source(), tpath, "needs atol, rtol or both");
    return f;
  };
  if (tol.get("atol") || tol.get("rtol")) {
    for (const char* p : {"fp32", "bf16"})
      if (const toml::node* n = tol.get(p))
        rd.fail(n->source(), std::string("tolerance.") + p, "give atol/rtol for both precisions or per precision, not both");
    const auto both = read_tol(tol, "tolerance");
    for (Precision p : tf.precisions) m->tolerance[p] = both;
  } else {
    for (const char* name : {"fp32", "bf16"}) {
      const Precision p = parse_precision(name);
      const bool defined = std::find(tf.precisions.begin(), tf.precisions.end(), p) != tf.precisions.end();
      const toml::node* n = tol.get(name);
      const std::string key = std::string("tolerance.") + name;
      if (!n) {
        if (defined) rd.fail(tol.source(), key, "missing (the task defines " + std::string(name) + "; or give atol/rtol for both)");
        continue;
      }
      if (!defined) rd.fail(n->source(), key, std::string("the task does not define ") + name + " (precisions)");
      m->tolerance[p] = read_tol(rd.table(*n, key), key);
    }
  }
}

// [cost] and complexity.
void read_cost(Parse& state) {
  const Reader& rd = state.rd;
  const toml::table& root = state.root;
  Model* const m = state.model.get();
  if (const toml::node* n = root.get("cost")) {
    const toml::table& t = rd.table(*n, "cost");
    rd.check_keys(t, "cost", {"bytes", "flops", "tensor"});
    m->bytes = rd.opt_expr(t, "cost", "bytes", m->cost_vars);
    m->flops = rd.opt_expr(t, "cost", "flops", m->cost_vars);
    if (const toml::node* b = t.get("tensor")) m->tensor = rd.boolean(*b, "cost.tensor");
  }
  m->complexity = rd.opt_expr(root, "", "complexity", m->cost_vars);
}

// Reference (FP64, host) or reference_kernel (a CUDA kernel), and baseline.
void read_reference(Parse& state) {
  const Reader& rd = state.rd;
  const toml::table& root = state.root;
  TaskFile& tf = state.tf;
  const fs::path& dir = state.dir;
  std::shared_ptr<TaskFileReference>& ref = state.ref;
  const toml::node* kernel_node = root.get("reference_kernel");
  const toml::node* kprec_node = root.get("reference_precision");
  if (const toml::node* n = root.get("reference"); n && kernel_node)
    rd.fail(kernel_node->source(), "reference_kernel", "give reference (an FP64 C/C++ reference) or reference_kernel (a CUDA kernel), not both");
  if (kernel_node) {
    tf.reference_kernel = rd.file_path(*kernel_node, "reference_kernel", dir);
    tf.reference_kernel_where = rd.where(kernel_node->source(), "reference_kernel");
    if (fs::path(tf.reference_kernel).extension() != ".cu")
      rd.fail(kernel_node->source(), "reference_kernel", fs::path(tf.reference_kernel).filename().string() + " is not a CUDA source (.cu)");
    if (!kprec_node)
      rd.fail(kernel_node->source(), "reference_precision", "missing (what reference_kernel computes in: " + join(kReferencePrecisions, ", ") + ")");
    tf.reference_precision = rd.string(*kprec_node, "reference_precision");
    if (std::find(kReferencePrecisions.begin(), kReferencePrecisions.end(), tf.reference_precision) == kReferencePrecisions.end())
      rd.fail(kprec_node->source(), "reference_precision",
              "unknown precision '" + tf.reference_precision + "' (" + join(kReferencePrecisions, ", ") + ")");
    if (const toml::node* n = root.get("reference_flags"))
      rd.fail(n->source(), "reference_flags", "host-compiler flags are for reference = \"ref.cpp\"; reference_kernel is built like a kernel");
  } else {
    if (kprec_node) rd.fail(kprec_node->source(), "reference_precision", "only with reference_kernel (reference = \"...\" computes in FP64)");
    ref = std::make_shared<TaskFileReference>();
    const toml::node* ref_node = rd.need(root, "", "reference",
                                         "the FP64 reference source, e.g. \"ref.cpp\" (include/mskb/core/abi/mskb_reference.h), or "
                                         "reference_kernel = \"orig.cu\" (a CUDA kernel)");
    tf.reference_source = rd.file_path(*ref_node, "reference", dir);
    ref->where = rd.where(ref_node->source(), "reference");
    ref->source = tf.reference_source;
    if (const toml::node* n = root.get("reference_flags")) tf.reference_flags = rd.strings(*n, "reference_flags");
    ref->flags = tf.reference_flags;
    tf.reference_state = ref;
  }
  if (const toml::node* n = root.get("baseline")) {
    if (n->is_string()) {
      const std::string f = rd.file_path(*n, "baseline", dir);
      for (Precision p : tf.precisions) tf.baseline[p] = f;
    } else {
      const toml::table& t = rd.table(*n, "baseline");
      rd.check_keys(t, "baseline", {"fp32", "bf16"});
      for (auto&& [k, v] : t) {
        const Precision p = parse_precision(std::string(k.str()));
        if (std::find(tf.precisions.begin(), tf.precisions.end(), p) == tf.precisions.end())
          rd.fail(k.source(), "baseline." + std::string(k.str()), "the task does not define " + std::string(k.str()) + " (precisions)");
        tf.baseline[p] = rd.file_path(v, "baseline." + std::string(k.str()), dir);
      }
    }
  }
}

// Every expression at every declared shape, so a run never meets one that cannot be evaluated.
void check_every_shape(Parse& state) {
  TaskFile& tf = state.tf;
  TaskSpec& spec = state.tf.spec;
  Model* const m = state.model.get();
  for (const char* which : {"paper", "heldout", "large"}) {
    const std::vector<Shape>& shapes = spec.sweep(which);
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      try {
        SparseSizes z;
        const std::vector<ExprValue> env = environment(*m, s, &z);
        for (std::size_t k = 0; k < m->params.size(); ++k) {
          const ParamModel& q = m->params[k];
          if (q.param.is_buffer) (void)buffer_length(*m, k, env, z, s);
          if (q.value.given) {
            (void)eval_double(q.value, env, s);
            check_integer_range(q, q.value, eval(q.value, env, s), s);
          }
          if (q.init.dist == Dist::int_uniform) {
            const int64_t lo = eval_int(q.init.a, env, s), hi = eval_int(q.init.b, env, s);
            if (lo > hi) eval_fail(q.init.b, s, "hi is below lo");
            check_integer_range(q, q.init.a, ExprValue::integer(lo), s);
            check_integer_range(q, q.init.b, ExprValue::integer(hi), s);
          } else if (q.init.dist != Dist::none) {
            if (q.init.dist == Dist::constant) check_integer_range(q, q.init.a, eval(q.init.a, env, s), s);
            (void)eval_double(q.init.a, env, s);
            if (q.init.b.given) (void)eval_double(q.init.b, env, s);
            if (q.init.dist == Dist::normal && eval_double(q.init.b, env, s) < 0) eval_fail(q.init.b, s, "std is negative");
            if (q.init.dist == Dist::uniform && eval_double(q.init.a, env, s) > eval_double(q.init.b, env, s))
              eval_fail(q.init.b, s, "hi is below lo");
          }
        }
        if (m->sparse.skewed.given) (void)eval_double(m->sparse.skewed, env, s);
        for (Precision p : tf.precisions) {
          const auto& t = m->tolerance.at(p);
          for (const Field* f : {&t.first, &t.second})
            if (f->given && eval_double(*f, env, s) < 0) eval_fail(*f, s, "a tolerance cannot be negative");
          const Cost c = cost(*m, s, p);
          if (c.bytes < 0) eval_fail(m->bytes, s, "bytes cannot be negative");
          if (c.flops < 0) eval_fail(m->flops, s, "flops cannot be negative");
        }
        if (m->complexity.given) {
          std::vector<ExprValue> cenv = env;
          cenv.push_back(ExprValue::integer(4));
          if (eval_double(m->complexity, cenv, s) < 0) eval_fail(m->complexity, s, "complexity cannot be negative");
        }
      } catch (const TaskFileError& e) {
        // Name the sweep entry too: "... at shape M=1,N=0 (sweeps.heldout[2], line 31)".
        throw TaskFileError(std::string(e.what()) + " (sweeps." + which + "[" + std::to_string(i) + "], line " +
                            std::to_string(state.shape_nodes[which][i]->source().begin.line) + ")");
      }
    }
  }
}

// The TaskSpec's functions, over the shared model; then the spec is validated.
void bind_spec(Parse& state) {
  TaskFile& tf = state.tf;
  TaskSpec& spec = state.tf.spec;
  const std::string& path = state.tf.path;
  const std::shared_ptr<TaskFileReference> ref = state.ref;
  std::shared_ptr<const Model> cm = state.model;
  const std::vector<Param> sig = spec.params;
  spec.vendor = "";
  spec.generate = [cm](const Shape& s, Precision, Rng& rng, Args& a) { generate(*cm, s, rng, a); };
  if (ref) {
    spec.reference = [ref, sig](const Shape& s, Precision p, Args& a) { call_reference(*ref, sig, s, p, a); };
  } else {
    // A reference kernel runs only in mskb-runner, on the GPU (mskb/gpu/kernel_reference.cuh).
    const std::string why = tf.reference_kernel_where + ": the reference of task " + spec.name + " is a CUDA kernel (" +
                            fs::path(tf.reference_kernel).filename().string() + "): it runs on the GPU, in mskb-runner; there is no host reference";
    spec.reference = [why](const Shape&, Precision, Args&) { throw std::runtime_error(why); };
  }
  spec.tolerance = [cm](const Shape& s, Precision p) { return tolerance(*cm, s, p); };
  spec.complexity = [cm](const Shape& s) { return complexity(*cm, s); };
  spec.cost = [cm](const Shape& s, Precision p) { return cost(*cm, s, p); };
  const std::vector<std::string> problems = validate(spec);
  if (!problems.empty()) throw TaskFileError(path + ": " + problems.front());
}

TaskFile parse_task_file(const std::string& path) {
  TaskFile tf;
  tf.path = path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw TaskFileError("task file not found: " + path);
  tf.absolute_path = fs::weakly_canonical(fs::absolute(path), ec).string();
  toml::table root;
  try {
    root = toml::parse(prepare_toml_text(read_text(path), path), path);  // what toml++ 3.3 can read safely
  } catch (const toml::parse_error& e) {
    throw TaskFileError(path + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
                        ": TOML syntax error: " + std::string(e.description()));
  }
  const Reader rd(path);
  Parse state{rd, root, tf, std::make_shared<Model>(), fs::path(tf.absolute_path).parent_path(), {}, {}, nullptr};
  state.model->file = path;
  rd.check_keys(root, "", {"name", "category", "semantics", "dims", "precisions", "seeds", "call_timeout_s", "random_shapes",
                           "reference", "reference_flags", "reference_kernel", "reference_precision", "baseline", "complexity", "params", "sweeps", "tolerance", "cost", "sparse"});
  read_identity(state);
  read_sparse(state);
  read_params(state);
  read_sweeps(state);
  read_tolerance(state);
  read_cost(state);
  read_reference(state);
  check_every_shape(state);
  bind_spec(state);
  return tf;
}

}  // namespace

#endif  // MSKB_HAVE_TOMLPP

bool task_files_supported() { return MSKB_HAVE_TOMLPP != 0; }

TaskFile load_task_file(const std::string& path) {
#if MSKB_HAVE_TOMLPP
  try {
    return parse_task_file(path);
  } catch (const TaskFileError& e) {
    throw TaskFileError(one_line(unshield_toml(e.what())));  // messages quote the file (keys, values, toml++'s view of a character)
  }
#else
  throw TaskFileError(path + ": this mskb was built without toml++ (install libtomlplusplus-dev, scripts/install-deps.sh, and reconfigure)");
#endif
}

}  // namespace mskb
