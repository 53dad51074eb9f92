#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(int c, char** v) {
  int fd = open(v[1], O_RDONLY);
  int r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  printf("fadvise %d\n", r);
  return 0;
}
