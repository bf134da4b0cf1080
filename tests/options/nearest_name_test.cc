// Tests of the "did you mean" helper shared by option, pass, key and stage errors.
#include "options/nearest_name.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TEST(EditDistanceTest, CountsInsertionsDeletionsAndSubstitutionsIgnoringCase) {
  EXPECT_EQ(EditDistance("", ""), 0);
  EXPECT_EQ(EditDistance("abc", ""), 3);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(EditDistance("Stages", "stages"), 0);
  EXPECT_EQ(EditDistance("pases", "passes"), 1);
}

TEST(NearestNameTest, SuggestsOnlyPlausibleTypos) {
  std::vector<std::string> names = {"oo.constantFolding", "oo.level", "oo.memoryPolicy"};
  EXPECT_EQ(NearestName("oo.constantFoldin", names), "oo.constantFolding");
  EXPECT_EQ(NearestName("oo.levl", names), "oo.level");
  EXPECT_EQ(NearestName("something.else.entirely", names), "");
  EXPECT_EQ(DidYouMean("oo.levle", names), "; did you mean 'oo.level'?");
  EXPECT_EQ(DidYouMean("zzz", names), "");
}

}  // namespace
}  // namespace kiln
