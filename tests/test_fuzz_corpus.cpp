// Replays the committed fuzz corpus (tests/fuzz/corpus/, including the reproducers of past fuzz
// findings, named regress-*) through the config and CSV loaders with the fuzz targets' oracle,
// in the ordinary build and therefore also under `make check-sanitize`: every input is either
// accepted or rejected with InvalidArgument/IoError, never anything else.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "io/csv.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> corpus(const std::string& kind) {
  std::vector<fs::path> files;
  for (const auto& e :
       fs::directory_iterator(std::string(GPB_SOURCE_DIR) + "/tests/fuzz/corpus/" + kind)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// "accepted", "rejected" or the text of an untyped exception.
template <class F>
std::string outcome(F&& body) {
  try {
    body();
    return "accepted";
  } catch (const gpb::InvalidArgument&) {
    return "rejected";
  } catch (const gpb::IoError&) {
    return "rejected";
  } catch (const std::exception& e) {
    return std::string("untyped exception: ") + e.what();
  }
}

TEST(FuzzCorpus, ConfigInputsAreAcceptedOrCleanlyRejected) {
  const auto files = corpus("config");
  ASSERT_GE(files.size(), 5u);
  int accepted = 0;
  for (const fs::path& f : files) {
    const std::string o = outcome([&] {
      gpb::parse_experiment_config(gpb::test::read_file(f.string()), "fuzz.json",
                                   std::string(GPB_SOURCE_DIR) + "/tests/fuzz/data");
    });
    EXPECT_TRUE(o == "accepted" || o == "rejected") << f << ": " << o;
    accepted += o == "accepted";
  }
  EXPECT_GE(accepted, 5);  // the hand-written seeds are valid configs
}

TEST(FuzzCorpus, CsvInputsAreAcceptedOrCleanlyRejected) {
  const auto files = corpus("csv");
  ASSERT_GE(files.size(), 3u);
  for (const fs::path& f : files) {
    const std::string bytes = gpb::test::read_file(f.string());
    if (bytes.empty()) continue;
    const std::string o = outcome([&] {
      const Eigen::MatrixXd m =
          gpb::detail::parse_csv_matrix(std::string_view(bytes).substr(1), "fuzz.csv", nullptr,
                                        static_cast<unsigned char>(bytes[0]) % 4);
      if (!m.allFinite() || m.size() == 0) throw std::runtime_error("bad matrix accepted");
    });
    EXPECT_TRUE(o == "accepted" || o == "rejected") << f << ": " << o;
  }
}

TEST(FuzzCorpus, NumberOverflowIsAnInvalidArgumentNamingTheFile) {
  try {
    gpb::parse_experiment_config(R"({"seed": 1e999})", "cfg.json", ".");
    FAIL() << "accepted 1e999";
  } catch (const gpb::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("cfg.json: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("out of the range of a double"), std::string::npos)
        << e.what();
  }
}

}  // namespace
