// Build-time tool: renders the hand-written SVG icon into the PNG sizes the
// desktop's icon theme looks for, so the SVG stays the only source.
//   steadyscope-render-icon ICON.svg SIZE OUT.png
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fputs("usage: steadyscope-render-icon ICON.svg SIZE OUT.png\n", stderr);
    return 2;
  }
  qputenv("QT_QPA_PLATFORM", "offscreen");  // runs during the build, without a display
  QGuiApplication app(argc, argv);
  QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
  const int size = QByteArray(argv[2]).toInt();
  if (!svg.isValid() || size < 8 || size > 1024) {
    std::fprintf(stderr, "steadyscope-render-icon: cannot render %s at size %s\n", argv[1], argv[2]);
    return 1;
  }
  QImage img(size, size, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::transparent);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  svg.render(&p);
  p.end();
  QSaveFile out(QString::fromLocal8Bit(argv[3]));  // whole or not at all
  if (!out.open(QIODevice::WriteOnly) || !img.save(&out, "PNG") || !out.commit()) {
    std::fprintf(stderr, "steadyscope-render-icon: cannot write %s\n", argv[3]);
    return 1;
  }
  return 0;
}
