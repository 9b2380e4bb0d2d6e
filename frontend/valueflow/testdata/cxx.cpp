// C++: the standard containers and algorithms, virtual calls, references
// (whose return attributes llir cannot read as clang writes them).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

struct Shape {
  virtual ~Shape() {}
  virtual double area() const = 0;
};
struct Square : Shape {
  double s;
  explicit Square(double s) : s(s) {}
  double area() const override { return s * s; }
};
struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override { return 3.14159 * r * r; }
};

static int table[16];
int &slot(int i) { return table[i & 15]; }

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 10;
  std::vector<double> v;
  for (int i = 0; i < n; i++) v.push_back((i * 37 % 11) - 5.5);
  std::sort(v.begin(), v.end());
  double sum = std::accumulate(v.begin(), v.end(), 0.0);
  std::vector<Shape *> shapes;
  for (int i = 0; i < 4; i++) {
    if (i % 2) shapes.push_back(new Square(i));
    else shapes.push_back(new Circle(i));
  }
  double area = 0;
  for (Shape *s : shapes) area += s->area();
  for (Shape *s : shapes) delete s;
  for (int i = 0; i < 20; i++) slot(i) += i;
  std::printf("%.2f %.2f %.2f %.4f %d\n", v.front(), v.back(), sum, area, slot(3));
  return 0;
}
