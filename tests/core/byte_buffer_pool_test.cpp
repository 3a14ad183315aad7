#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "core/byte_buffer_pool.hpp"
#include "core/error.hpp"
#include "io/file_bytes.hpp"

TEST_CASE("ByteBufferPool hands a returned buffer's memory out again, cleared", "[core][pool]") {
  gp::ByteBufferPool pool(2);
  CHECK(pool.take().capacity() == 0);  // nothing returned yet

  std::vector<std::uint8_t> a(1000, 7);
  const std::uint8_t* memory = a.data();
  pool.give(std::move(a));
  CHECK(pool.size() == 1);
  std::vector<std::uint8_t> b = pool.take();
  CHECK(b.empty());
  CHECK(b.capacity() >= 1000);
  CHECK(b.data() == memory);
  CHECK(pool.size() == 0);
}

TEST_CASE("ByteBufferPool keeps at most its limit and ignores buffers without memory", "[core][pool]") {
  gp::ByteBufferPool pool(2);
  pool.give({});
  CHECK(pool.size() == 0);
  for (int i = 0; i < 5; ++i) pool.give(std::vector<std::uint8_t>(100));
  CHECK(pool.size() == 2);
}

TEST_CASE("ByteBufferPool, closed, frees what it kept and keeps nothing more", "[core][pool]") {
  gp::ByteBufferPool pool(4);
  for (int i = 0; i < 3; ++i) pool.give(std::vector<std::uint8_t>(100));
  CHECK(pool.size() == 3);
  pool.close();
  CHECK(pool.size() == 0);
  pool.give(std::vector<std::uint8_t>(100));
  CHECK(pool.size() == 0);
  CHECK(pool.take().capacity() == 0);
}

TEST_CASE("ByteBufferPool is shared by threads that give and take", "[core][pool]") {
  gp::ByteBufferPool pool(64);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 2000; ++i) {
        std::vector<std::uint8_t> buffer = pool.take();
        REQUIRE(buffer.empty());
        buffer.assign(std::size_t(100 + t), std::uint8_t(t));
        pool.give(std::move(buffer));
      }
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(pool.size() >= 1);
  CHECK(pool.size() <= 4);
}

TEST_CASE("read_file_bytes into a used vector gives the file's bytes and reuses its memory", "[io][file]") {
  const auto path = std::filesystem::temp_directory_path() / "gpuproc_read_file_bytes_test.bin";
  {
    std::ofstream f(path, std::ios::binary);
    f << "hello";
  }
  std::vector<std::uint8_t> bytes(4096, 0xAB);
  const std::uint8_t* memory = bytes.data();
  gp::io::read_file_bytes(path.string(), bytes);
  CHECK(bytes == std::vector<std::uint8_t>{'h', 'e', 'l', 'l', 'o'});
  CHECK(bytes.data() == memory);
  CHECK(gp::io::read_file_bytes(path.string()) == bytes);
  std::filesystem::remove(path);
  CHECK_THROWS_AS(gp::io::read_file_bytes(path.string(), bytes), gp::ItemError);
}
