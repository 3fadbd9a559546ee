/*
** fs_floor.c - what creating a directory of files costs the file system
** alone: for every regular file of SRC, a file of the same name and size
** is created in the new directory DST (openat O_CREAT|O_EXCL, one write,
** close), and the seconds that took are printed.  The files are made in
** the order of SRC/.kfjob-outputs when there is one (the order kfjob wrote
** them: on ext4, creating in readdir order, the directory's hash order, is
** several times faster than in any other), else in readdir order.  No
** rendering, no list, no checks: the floor a `kfjob render -o DIR` into an
** empty directory cannot go under.  Built and run by bench/render_dir.sh:
**
**   cc -O2 -o fs_floor bench/fs_floor.c && ./fs_floor SRC DST
*/
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct file {
  char *name;
  size_t size;
} file;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  DIR *d;
  FILE *list;
  char line[4096];
  struct dirent *de;
  file *v = NULL;
  size_t n = 0, cap = 0, i, max = 1;
  char *buf;
  int src, dst;
  double t0, t1;
  if (argc != 3) {
    fprintf(stderr, "usage: fs_floor SRC DST\n");
    return 2;
  }
  if ((d = opendir(argv[1])) == NULL) {
    perror(argv[1]);
    return 1;
  }
  src = dirfd(d);
  list = fdopen(openat(src, ".kfjob-outputs", O_RDONLY | O_CLOEXEC), "r");
  for (;;) {   /* the names and sizes, untimed */
    struct stat sb;
    const char *name;
    if (list != NULL) {
      if (fgets(line, sizeof line, list) == NULL) break;
      if (line[0] == '#') continue;
      line[strcspn(line, "\t\n")] = '\0';
      name = line;
    } else {
      if ((de = readdir(d)) == NULL) break;
      name = de->d_name;
    }
    if (name[0] == '.' || name[0] == '\0' ||
        fstatat(src, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
      continue;
    if (n == cap && (v = realloc(v, (cap = cap ? 2 * cap : 1024) * sizeof *v)) == NULL) return 1;
    if ((v[n].name = strdup(name)) == NULL) return 1;
    v[n].size = (size_t)sb.st_size;
    if (v[n].size > max) max = v[n].size;
    n++;
  }
  if (list != NULL) fclose(list);
  closedir(d);
  if ((buf = malloc(max)) == NULL) return 1;
  memset(buf, 'x', max);
  if (mkdir(argv[2], 0777) != 0 ||
      (dst = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
    perror(argv[2]);
    return 1;
  }
  t0 = now();
  for (i = 0; i < n; i++) {
    int fd = openat(dst, v[i].name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 || write(fd, buf, v[i].size) != (ssize_t)v[i].size || close(fd) != 0) {
      perror(v[i].name);
      return 1;
    }
  }
  t1 = now();
  printf("%zu %.3f\n", n, t1 - t0);
  for (i = 0; i < n; i++) free(v[i].name);
  free(v);
  free(buf);
  close(dst);
  return 0;
}
