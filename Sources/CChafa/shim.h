// libchafa (Debian libchafa-dev): renders images as terminal graphics (sixels, kitty, iTerm2
// or Unicode symbols), used by `snapsort review`.
#include <chafa.h>
