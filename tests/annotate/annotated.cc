// SPDX-License-Identifier: GPL-3.0-or-later
// The annotations from C++: a method on the critical path, a scope left by
// an exception, std::thread workers ending async regions begun by main, an
// instant and a counter.  3 threads x 4 calls of Shape::area (1 ms each),
// 2 "risky" scopes that throw, 3 async "job" regions.
#include <perun/annotate.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace shapes {
struct Shape {
	int side;
	int area() const
	{
		PERUN_CRITICAL_PATH(area, around);
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
		return side * side;
	}
};
} // namespace shapes

static void risky(int i)
{
	PERUN_SYNC_SCOPE(risky);
	std::this_thread::sleep_for(std::chrono::milliseconds(2));
	if (i >= 0)
		throw std::runtime_error("no");
}

int main()
{
	std::vector<std::thread> workers;
	for (int t = 0; t < 3; t++) {
		PERUN_ASYNC_BEGIN(job, t);
		workers.emplace_back([t] {
			shapes::Shape s{t + 1};
			int sum = 0;
			for (int i = 0; i < 4; i++)
				sum += s.area();
			PERUN_COUNTER(sum, "value", sum);
			PERUN_ASYNC_END(job, t);
		});
	}
	for (auto &w : workers)
		w.join();
	for (int i = 0; i < 2; i++) {
		try {
			risky(i);
		} catch (const std::exception &) {
			PERUN_INSTANT(caught, "i", i);
		}
	}
	return 0;
}
