#include "mskb/cli.hpp"

int main(int argc, char** argv) { return mskb::mskb_main(argc, argv); }
