// Command-line parsing for the `xpose` subcommands: flags, their values, and the settings they
// make. Every error is a UsageError whose message names the flag and the problem.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common.hpp"

namespace xpose_tool {

struct ParsedArgs {
  std::string command;
  std::map<std::string, std::string> values;  // "--extents" -> "4,5,6"
  std::set<std::string> switches;             // "--list", "--help"
  std::vector<std::string> positional;

  bool has(const std::string& flag) const { return values.count(flag) || switches.count(flag); }
  const std::string* get(const std::string& flag) const;
};

// Accepts "--flag value" and "--flag=value" for `value_flags`, bare `switch_flags`, and
// positional arguments; anything else starting with "--" is an unknown option.
ParsedArgs parse_args(const std::string& command, const std::vector<std::string>& args,
                      const std::set<std::string>& value_flags,
                      const std::set<std::string>& switch_flags);

int64_t parse_int(const std::string& flag, const std::string& text, int64_t lo, int64_t hi);
// The items of a comma-separated list ("" is no item; empty items are kept).
std::vector<std::string> split_list(const std::string& text);
std::vector<int64_t> parse_int_list(const std::string& flag, const std::string& text);
// An element size: 1, 2, 4, 8 or 16.
size_t parse_elem(const std::string& flag, const std::string& text);

// The flags every command that plans shares (see settings_help()).
extern const std::set<std::string> kSettingFlags;
// Switches every command that runs a transposition accepts (--warm).
extern const std::set<std::string> kSettingSwitches;
// `own` plus kSettingSwitches.
std::set<std::string> with_settings(std::set<std::string> own);
Settings parse_settings(const ParsedArgs& args);
const char* settings_help();

// --extents and --perm, checked together: `xpose: --perm: 3 is out of range for rank 3`.
Case parse_case(const ParsedArgs& args);
// The same checks for a case read from a suite file or generated (messages name `where`).
void check_case(const Case& c, const std::string& where);

}  // namespace xpose_tool
