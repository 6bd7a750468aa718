// Passes over the lowered program: truncation to what the outputs use, and the list
// of windowed series that no param reaches (hoisted: computed once for all combos).

#include "lang/compiler_internal.hpp"

#include <kbt/lang/op_table.hpp>

namespace kbt::detail {

void Compiler::truncate(std::size_t code, std::size_t scans, std::size_t tape, std::size_t refs, std::size_t frames) {
  prog.code.resize(code);
  prog.frame_ns.resize(frames);
  prog.scans.resize(scans);
  prog.scan_names.resize(scans);
  prog.scan_output_names.resize(scans);
  prog.scan_state_names.resize(scans);
  prog.scan_tape.resize(tape);
  prog.scan_refs.resize(refs);
}

void Compiler::build_hoisting_list() {
  prog.hoisted.clear();
  for (std::size_t r = 0; r < prog.code.size(); ++r) {
    const Instr& i = prog.code[r];
    if (!is_windowed(i.op)) continue;
    bool input_dep = false;
    for (std::int32_t x : {i.a, i.b, i.c})
      if (x >= 0 && prog.code[static_cast<std::size_t>(x)].depends_on_params) input_dep = true;
    if (input_dep) continue;
    HoistedSeries h;
    h.reg = static_cast<std::int32_t>(r);
    h.op = i.op;
    h.a = i.a;
    h.b = i.b;
    h.c = i.c;
    h.window_kind = i.window_kind;
    h.window = i.window;
    h.frame = i.frame;
    prog.hoisted.push_back(h);
  }
}

}  // namespace kbt::detail
