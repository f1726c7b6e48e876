// Owns the mskb command line (apps/mskb/main.cpp is three lines over it).
#pragma once

namespace mskb {
int mskb_main(int argc, char** argv);
}
