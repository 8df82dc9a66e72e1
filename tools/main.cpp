// gpbandit command line (stub).
#include <iostream>

int main() {
  std::cerr << "gpbandit: error: not implemented yet\n";
  return 1;
}
