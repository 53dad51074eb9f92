#pragma once
// A paint device that draws nothing and counts primitives (rects, lines,
// paths, polygons, text items, images) — to prove the timeline's work per
// frame is bounded by pixels, not by events.
#include <QPaintDevice>
#include <QPaintEngine>

namespace steadyscope::testing {

class CountingEngine : public QPaintEngine {
 public:
  CountingEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
  qint64 primitives = 0;
  bool begin(QPaintDevice*) override { return true; }
  bool end() override { return true; }
  void updateState(const QPaintEngineState&) override {}
  void drawRects(const QRect*, int n) override { primitives += n; }
  void drawRects(const QRectF*, int n) override { primitives += n; }
  void drawLines(const QLine*, int n) override { primitives += n; }
  void drawLines(const QLineF*, int n) override { primitives += n; }
  void drawEllipse(const QRectF&) override { ++primitives; }
  void drawEllipse(const QRect&) override { ++primitives; }
  void drawPath(const QPainterPath&) override { ++primitives; }
  void drawPoints(const QPointF*, int n) override { primitives += n; }
  void drawPoints(const QPoint*, int n) override { primitives += n; }
  void drawPolygon(const QPointF*, int, PolygonDrawMode) override { ++primitives; }
  void drawPolygon(const QPoint*, int, PolygonDrawMode) override { ++primitives; }
  void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override { ++primitives; }
  void drawTextItem(const QPointF&, const QTextItem&) override { ++primitives; }
  void drawTiledPixmap(const QRectF&, const QPixmap&, const QPointF&) override { ++primitives; }
  void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override { ++primitives; }
  Type type() const override { return QPaintEngine::User; }
};

class CountingDevice : public QPaintDevice {
 public:
  explicit CountingDevice(QSize size) : size_(size) {}
  ~CountingDevice() override = default;
  QPaintEngine* paintEngine() const override { return &engine_; }
  qint64 primitives() const { return engine_.primitives; }

 protected:
  int metric(PaintDeviceMetric m) const override {
    switch (m) {
      case PdmWidth: return size_.width();
      case PdmHeight: return size_.height();
      case PdmWidthMM: return size_.width() * 254 / 960;
      case PdmHeightMM: return size_.height() * 254 / 960;
      case PdmNumColors: return INT_MAX;
      case PdmDepth: return 32;
      case PdmDpiX:
      case PdmDpiY:
      case PdmPhysicalDpiX:
      case PdmPhysicalDpiY: return 96;
      case PdmDevicePixelRatio: return 1;
      case PdmDevicePixelRatioScaled: return int(QPaintDevice::devicePixelRatioFScale());
      default: return 0;
    }
  }

 private:
  QSize size_;
  mutable CountingEngine engine_;
};

}  // namespace steadyscope::testing
