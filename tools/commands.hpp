// The subcommands of `xpose`; each returns the process exit status.
#pragma once

#include <string>
#include <vector>

namespace xpose_tool {

int run_command(const std::vector<std::string>& args);
int bench_command(const std::vector<std::string>& args);
int explain_command(const std::vector<std::string>& args);
int inplace_command(const std::vector<std::string>& args);        // cmd_inplace.cpp
int bench_inplace_command(const std::vector<std::string>& args);  // cmd_inplace.cpp
int bench_single_command(const std::vector<std::string>& args);   // cmd_single.cpp
int bench_host_command(const std::vector<std::string>& args);     // cmd_host.cpp
int calibrate_command(const std::vector<std::string>& args);      // CUDA builds only

}  // namespace xpose_tool
