// SPDX-License-Identifier: GPL-3.0-or-later
// The paper's Table III program: std::regex_search of each input line with
// the Java class name validation regex of OWASP's ReDoS list, whose
// unescaped '.' lets a non-matching line backtrack exponentially.
#include <fstream>
#include <iostream>
#include <regex>
#include <string>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	std::ifstream in(argv[1]);
	if (!in)
		return 2;
	static const std::regex java_class("^(([a-z])+.)+[A-Z]([a-z])+$");
	std::string line;
	long matched = 0;
	while (std::getline(in, line))
		matched += std::regex_search(line, java_class);
	std::cout << matched << "\n";
	return 0;
}
