#pragma once
// Chunk ▸ Export… and Save report…: the selected chunk of the shown result
// handed to the export dialog (which runs on the Export lane) and to the
// report, whose PDF and PNG are rendered and written on the Report lane;
// "Copy the timeline as an image". Says why each is unavailable.
#include "app_settings.hpp"
#include "controller.hpp"

#include <QImage>
#include <QSize>

class QWidget;

namespace steadyscope::widgets {
class SelectionModel;
class TimelineView;
}  // namespace steadyscope::widgets

namespace steadyscope::app {

class RunPanel;

class ExportController : public Controller {
  Q_OBJECT
 public:
  ExportController(Document* doc, JobSystem* jobs, RunPanel* run, widgets::SelectionModel* selection,
                   widgets::TimelineView* timeline, AppSettings* settings, QWidget* window);

  /// Why Export is unavailable now, in words ("": it is available).
  QString exportBlocker() const;
  /// Why the report is unavailable now ("": it is available).
  QString reportBlocker() const;
  /// Writes the report of the selected chunk on the Report lane: OUT.pdf and
  /// beside it OUT.png, the timeline view at `pngSize`; `done` gets "" on
  /// success, else the reason.
  void startReport(const QString& pdfPath, QSize pngSize, std::function<void(QString)> done);
  /// The same, waiting for it (the headless --report and tests).
  QString saveReport(const QString& pdfPath, QSize pngSize);
  /// The timeline view as it is shown, rendered at `size` (the report's PNG, Copy image).
  QImage timelineImage(QSize size) const;

 public slots:
  /// The export dialog on the selected chunk (window-modal).
  void exportSelectedChunk();
  /// Asks for OUT.pdf, then writes OUT.pdf and OUT.png.
  void saveReportDialog();
  void copyTimelineImage();

 private:
  RunPanel* run_;
  widgets::SelectionModel* selection_;
  widgets::TimelineView* timeline_;
  AppSettings* settings_;
  QWidget* window_;  // the dialogs' parent
};

}  // namespace steadyscope::app
