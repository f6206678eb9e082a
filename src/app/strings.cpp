// Every UI string, in English and Simplified Chinese (i18n.h). One row per string; the
// English is the key Tr() is called with. Format strings keep their conversions in the
// same order in both columns.
#include "app/i18n.h"

namespace llmmem::app {

const Translation kStrings[] = {
    {nullptr, nullptr},
};

}  // namespace llmmem::app
