/* Three threads burning CPU in distinct call chains, one of them also in
 * the kernel (write(2) to /dev/null): input for t0510-import-perf.sh. */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) static void parse(void)
{
	spin(6000000);
}

__attribute__((noinline)) static void render(void)
{
	spin(9000000);
}

__attribute__((noinline)) static void syscalls(void)
{
	char buf[4096] = { 0 };
	int fd = open("/dev/null", O_WRONLY);
	for (int i = 0; i < 60000; i++)
		if (write(fd, buf, sizeof(buf)) < 0)
			break;
	close(fd);
}

static void *worker(void *arg)
{
	if (arg)
		render();
	else
		syscalls();
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, worker, (void *)1);
	pthread_create(&b, NULL, worker, NULL);
	parse();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
