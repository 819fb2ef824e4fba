// SPDX-License-Identifier: GPL-3.0-or-later
// C++ names: the uid of a method is its demangled name.
namespace shapes {
struct Square {
	int side;
	__attribute__((noinline)) int area(int scale) const { return side * side * scale; }
};
}

int main()
{
	shapes::Square s{3};
	int a = 0;
	for (int i = 0; i < 6; i++)
		a += s.area(i);
	return a == 0;
}
