// steadyscope: the GUI. Everything lives in steadyscope_app (gui_main.cpp).
#include "gui_main.hpp"

int main(int argc, char** argv) { return steadyscope::app::runSteadyscope(argc, argv); }
