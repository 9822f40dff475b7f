// The .nb reader and translator (csrc/loader/nb) on the committed single-op
// files: every file translates into a ModelProto with edgeocr's metadata, and
// every truncation and every single-bit flip of a small file ends in ONNX
// bytes or an edgeocr::Error (kInvalidModel / kUnsupported) naming the file.
// Under tools/sanitize.sh this runs with ASan and UBSan.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "edgeocr/status.h"
#include "loader/nb/nb.h"

namespace {

const std::string kOps = std::string(EDGEOCR_TEST_DATA_DIR) + "/paddle_lite_ops";

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> nb_files() {
  std::vector<std::string> out;
  if (DIR* d = opendir(kOps.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 3 && n.compare(n.size() - 3, 3, ".nb") == 0) out.push_back(kOps + "/" + n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// 0: translated, 1: refused with a good error, 2: a bad outcome.
int outcome(const std::string& data) {
  try {
    std::string onnx = edgeocr::nb::translate_to_onnx(data.data(), data.size(), "t.nb");
    return onnx.size() > 2 && onnx[0] == 0x08 ? 0 : 2;
  } catch (const edgeocr::Error& e) {
    bool code_ok = e.code() == edgeocr::StatusCode::kInvalidModel ||
                   e.code() == edgeocr::StatusCode::kUnsupported;
    return code_ok && std::string(e.what()).find("t.nb") != std::string::npos ? 1 : 2;
  } catch (...) {
    return 2;
  }
}

}  // namespace

TEST(every_committed_op_file_translates) {
  auto files = nb_files();
  CHECK(files.size() >= 40);
  for (const auto& f : files) {
    std::string d = read(f);
    CHECK(edgeocr::nb::looks_like_nb(d.data(), d.size()));
    std::string onnx = edgeocr::nb::translate_to_onnx(d.data(), d.size(), f);
    CHECK(onnx.size() > 100 && onnx[0] == 0x08);
    CHECK(onnx.find("paddle_lite_nb") != std::string::npos);
    CHECK(onnx.find(edgeocr::nb::kTranslatorVersion) != std::string::npos);
  }
}

TEST(every_truncation_is_refused) {
  std::string d = read(kOps + "/conv_bn_act_x86.nb");
  CHECK(!d.empty());
  // every length through the header and program, then every 61st
  for (std::size_t n = 0; n < d.size(); n += n < 4096 ? 1 : 61) {
    int o = outcome(d.substr(0, n));
    if (o != 1) std::fprintf(stderr, "truncation to %zu bytes: outcome %d\n", n, o);
    CHECK(o == 1);
  }
}

TEST(every_bit_flip_ends_in_onnx_or_an_error) {
  std::string d = read(kOps + "/split_neg_axis_x86.nb");
  CHECK(!d.empty());
  int counts[3] = {0, 0, 0};
  for (std::size_t i = 0; i < d.size() && i < 1536; ++i)
    for (int b = 0; b < 8; ++b) {
      std::string m = d;
      m[i] = static_cast<char>(m[i] ^ (1 << b));
      int o = outcome(m);
      ++counts[o];
      if (o == 2) std::fprintf(stderr, "flip of bit %d of byte %zu: bad outcome\n", b, i);
    }
  CHECK(counts[2] == 0);
  CHECK(counts[0] > 0 && counts[1] > 0);
}

TEST(not_nb_files_are_refused) {
  CHECK(!edgeocr::nb::looks_like_nb("", 0));
  CHECK(!edgeocr::nb::looks_like_nb("\x08\x08", 2));
  std::string onnx_like(64, '\0');
  onnx_like[0] = 0x08;
  CHECK(!edgeocr::nb::looks_like_nb(onnx_like.data(), onnx_like.size()));
  CHECK(outcome(onnx_like) == 1);
}

TEST(cache_roundtrip_and_unwritable_folder) {
  std::string d = read(kOps + "/relu6_x86.nb");
  char tmpl[] = "/tmp/edgeocr_nb_cache_XXXXXX";
  CHECK(mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  std::string a = edgeocr::nb::cached_translate_to_onnx(d.data(), d.size(), "relu6.nb", dir + "/c");
  std::string b = edgeocr::nb::cached_translate_to_onnx(d.data(), d.size(), "relu6.nb", dir + "/c");
  CHECK(a == b && a == edgeocr::nb::translate_to_onnx(d.data(), d.size(), "relu6.nb"));
  // a file where the folder should be: translated every time, no error
  std::ofstream(dir + "/file").put('x');
  std::string c =
      edgeocr::nb::cached_translate_to_onnx(d.data(), d.size(), "relu6.nb", dir + "/file/c");
  CHECK(c == a);
  std::string cmd = "rm -rf '" + dir + "'";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_MAIN()
