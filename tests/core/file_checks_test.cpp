// gp::require_regular_file and gp::read_text_file: FIFOs, devices, sockets and folders refused
// without blocking, text read with a cap.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "support/test_data.hpp"
#include "support/within.hpp"

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using gp::test::usage_error_within;

std::string write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::string make_fifo(const fs::path& path) {
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  return path.string();
}

}  // namespace

TEST_CASE("require_regular_file accepts regular files and links to them", "[file_checks]") {
  const fs::path dir = gp::test::scratch_dir("file-checks-regular");
  const std::string file = write_file(dir / "a.txt", "x");
  fs::create_symlink(file, dir / "link.txt");
  CHECK_NOTHROW(gp::require_regular_file(file, "input"));
  CHECK_NOTHROW(gp::require_regular_file((dir / "link.txt").string(), "input"));
  CHECK_NOTHROW(gp::require_regular_file(write_file(dir / "empty.txt", ""), "input"));
}

TEST_CASE("require_regular_file names the file, its role and what it is instead", "[file_checks]") {
  const fs::path dir = gp::test::scratch_dir("file-checks-kinds");
  const std::string fifo = make_fifo(dir / "fifo");
  const std::string missing = (dir / "missing").string();
  fs::create_symlink(missing, dir / "dangling");

  CHECK(usage_error_within([&] { gp::require_regular_file(fifo, "input"); }) ==
        "input: " + fifo + " is a FIFO (named pipe), not a regular file");
  CHECK_THROWS_WITH(gp::require_regular_file("/dev/zero", "/mask/image"),
                    "/mask/image: /dev/zero is a character device, not a regular file");
  CHECK_THROWS_WITH(gp::require_regular_file(dir.string(), "config file"),
                    "config file: " + dir.string() + " is a folder, not a regular file");
  CHECK_THROWS_WITH(gp::require_regular_file(missing, "list file"), "list file: " + missing + " does not exist");
  CHECK_THROWS_WITH(gp::require_regular_file((dir / "dangling").string(), "input"), Contains("does not exist"));
  CHECK_THROWS_WITH(gp::require_regular_file("", "/model/path"), "/model/path: empty file name");

  // A socket.
  const std::string socket_path = (dir / "sock").string();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  REQUIRE(socket_path.size() < sizeof address.sun_path);
  std::copy(socket_path.begin(), socket_path.end(), address.sun_path);
  REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  CHECK_THROWS_WITH(gp::require_regular_file(socket_path, "input"), "input: " + socket_path + " is a socket, not a regular file");
  ::close(fd);

  // A block device, where the machine shows one.
  for (const char* device : {"/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1"}) {
    struct stat st {};
    if (::stat(device, &st) != 0 || !S_ISBLK(st.st_mode)) continue;
    CHECK_THROWS_WITH(gp::require_regular_file(device, "input"), Contains("is a block device"));
    break;
  }
}

TEST_CASE("read_text_file reads whole files up to the cap", "[file_checks]") {
  const fs::path dir = gp::test::scratch_dir("file-checks-read");
  CHECK(gp::read_text_file(write_file(dir / "a.txt", "hello\n"), 100, "config file") == "hello\n");
  CHECK(gp::read_text_file(write_file(dir / "empty.txt", ""), 100, "config file").empty());
  const std::string exact = write_file(dir / "exact.txt", std::string(100, 'x'));
  CHECK(gp::read_text_file(exact, 100, "list file") == std::string(100, 'x'));
  CHECK_THROWS_WITH(gp::read_text_file(exact, 99, "list file"),
                    "list file: " + exact + " is larger than the limit of 99 bytes");
  // A big sparse file is refused from its size, without reading it.
  const std::string sparse = (dir / "sparse.json").string();
  fs::resize_file(write_file(sparse, ""), (16u << 20) + 1);
  CHECK(usage_error_within([&] { gp::read_text_file(sparse, gp::max_config_bytes, "config file"); }) ==
        "config file: " + sparse + " is larger than the limit of 16 MiB");
  // Files that report no size (/proc) are read up to the cap and no further.
  CHECK_THROWS_WITH(gp::read_text_file("/proc/self/maps", 10, "list file"), Contains("larger than the limit of 10 bytes"));
  CHECK_FALSE(gp::read_text_file("/proc/self/maps", 1u << 24, "list file").empty());
}

TEST_CASE("read_text_file refuses devices and FIFOs at once", "[file_checks]") {
  const fs::path dir = gp::test::scratch_dir("file-checks-read-special");
  const std::string fifo = make_fifo(dir / "fifo.json");
  CHECK_THAT(usage_error_within([&] { gp::read_text_file("/dev/zero", gp::max_config_bytes, "config file"); }),
             Equals("config file: /dev/zero is a character device, not a regular file"));
  CHECK_THAT(usage_error_within([&] { gp::read_text_file(fifo, gp::max_list_bytes, "list file"); }),
             Equals("list file: " + fifo + " is a FIFO (named pipe), not a regular file"));
  CHECK_THAT(usage_error_within([&] { gp::read_text_file(dir.string(), 100, "config file"); }),
             Contains("is a folder, not a regular file"));
  CHECK_THAT(usage_error_within([&] { gp::read_text_file((dir / "none").string(), 100, "config file"); }),
             Contains("does not exist"));
}
