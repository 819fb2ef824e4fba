// SPDX-License-Identifier: GPL-3.0-or-later
// C++ new and delete for t5400: names must come out demangled.
#include <vector>

namespace shapes {
struct Widget {
	int v[10];
	static Widget *make(int seed)
	{
		Widget *w = new Widget(); // @make-new
		w->v[0] = seed;
		return w;
	}
};
} // namespace shapes

int main()
{
	for (int i = 0; i < 3; i++) {
		shapes::Widget *w = shapes::Widget::make(i);
		delete w; // @delete
	}
	int *arr = new int[25]; // @new-array
	arr[0] = 1;
	delete[] arr;
	return 0;
}
