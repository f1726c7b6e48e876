#include "cudamaster/cli.hpp"

int main(int argc, char** argv) { return cudamaster::cudamaster_main(argc, argv); }
