#include "binary/InlineScopes.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdlib>

namespace ctrl {

namespace {

std::string basename_of(const char* path) {
  std::string p = path ? path : "";
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

}  // namespace

std::vector<InlinedCall> inlined_calls(Dwfl_Module* module, uint64_t addr) {
  std::vector<InlinedCall> out;
  if (!module) return out;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(module, addr, &bias);
  if (!cu) return out;
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cu, addr - bias, &scopes);
  if (n <= 0) return out;
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0) files = nullptr;
  for (int i = 0; i < n; ++i) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
    InlinedCall call;
    Dwarf_Attribute attr;
    if (const char* name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &attr))) call.function = name;
    Dwarf_Word file = 0, line = 0;
    if (files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &file) == 0 && file < nfiles)
      call.file = basename_of(dwarf_filesrc(files, file, nullptr, nullptr));
    if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &line) == 0) call.line = int(line);
    if (!call.function.empty()) out.push_back(std::move(call));
  }
  std::free(scopes);
  return out;
}

}  // namespace ctrl
