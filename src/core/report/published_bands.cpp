// See published_bands.h. The numbers are published_bands_data.cpp's (generated).
#include "core/report/published_bands.h"

#include <cstring>

#include "core/base/units.h"

namespace llmmem::core {

// published_bands_data.cpp.
extern const PublishedBand kPublishedBands[];
extern const int kPublishedBandCount;

namespace {

std::string StackName(const std::string& stack) { return stack.substr(0, stack.find('@')); }

std::string Ratio(double r) { return FormatNumber(r, 2); }

}  // namespace

const PublishedBand* FindPublishedBand(const std::string& stack) {
  const std::string name = StackName(stack);
  for (int i = 0; i < kPublishedBandCount; ++i) {
    if (name == kPublishedBands[i].stack) return &kPublishedBands[i];
  }
  return nullptr;
}

std::string PublishedBandText(const Config& c) {
  if (c.mode == Mode::kInference) return {};
  const std::string name = StackName(c.stack);
  const PublishedBand* b = FindPublishedBand(name);
  if (b == nullptr) {
    return "no published training peak of " + name +
           " is on record (tests/published): how far this estimate is from a real run is not known";
  }
  return "published runs of " + name + " (" + std::to_string(b->runs) +
         ", tests/published, each mapped with only --stack and what its source states): the estimate read " +
         Ratio(b->min) + "-" + Ratio(b->max) + " of the measured peak, the middle half " + Ratio(b->q1) + "-" +
         Ratio(b->q3) + ", median " + Ratio(b->median) + "; " + std::to_string(b->within10) + " within ±10%";
}

Json PublishedBandJson(const Config& c) {
  if (c.mode == Mode::kInference) return Json();
  Json j = Json(Json::Object{});
  const std::string name = StackName(c.stack);
  j["stack"] = Json(name);
  const PublishedBand* b = FindPublishedBand(name);
  j["runs"] = Json(static_cast<double>(b == nullptr ? 0 : b->runs));
  if (b != nullptr) {
    j["within10"] = Json(static_cast<double>(b->within10));
    j["min"] = Json(b->min);
    j["q1"] = Json(b->q1);
    j["median"] = Json(b->median);
    j["q3"] = Json(b->q3);
    j["max"] = Json(b->max);
  }
  j["text"] = Json(PublishedBandText(c));
  return j;
}

}  // namespace llmmem::core
