#pragma once
// Chunk ▸ Export…: the selected chunk of a split (a fresh one or a reviewed
// split directory placed on its source) written by exporting::exportChunk as
// the CLI writes it. The dialog shows the target folder, the four files it
// will write and which of them exist, runs the export on the window's job
// runner with its stages in words and Cancel, asks before replacing an earlier
// export, and lists the written files with "Show in folder".
#include "app_settings.hpp"
#include "job_lane.hpp"
#include "split_adapter.hpp"

#include <steadyscope/export.hpp>

#include <QDialog>
#include <QStringList>

#include <memory>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;

namespace steadyscope::app {

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  struct Subject {
    std::shared_ptr<PlannedSplit> planned;  // the split the chunk comes from (with its splitter)
    names::ChunkMode mode = names::ChunkMode::Mixed;
    QString chunkTitle;      // "mixed chunk, steps 4–35"
    gate::GateOptions gate;  // the window's threshold (the manifest's verdict)
  };
  ExportDialog(Subject subject, JobLane* runner, AppSettings* settings, QWidget* parent = nullptr);
  ~ExportDialog() override;  // a job still running is dropped (it cleans up after itself)
  /// Esc / close while exporting cancels the export instead of closing.
  void reject() override;

  // For tests.
  QLineEdit* folderEdit() const { return folder_; }
  QPushButton* exportButton() const { return exportButton_; }
  QPushButton* cancelButton() const { return cancelButton_; }
  QPushButton* showFolderButton() const { return showFolder_; }
  QRadioButton* plainJsonButton() const { return plain_; }
  QString filesText() const;    // the file list as shown
  QString messageText() const;  // the refusal, error or outcome line
  /// The files the last export wrote (empty until one succeeded).
  const QStringList& writtenFiles() const { return written_; }
  void setWriteFaultForTests(WriteFault f) { fault_ = std::move(f); }

 public slots:
  void refresh();      // the preview for the folder and format shown
  void startExport();  // asks before replacing files, then runs the job

 private:
  void build();
  exporting::ExportRequest request(bool force) const;
  void showRunning(bool running);
  void onProgress();
  void onDone(const Expected<exporting::ExportReport>& r);
  void browse();
  void showFiles(const QString& label, const QStringList& names, const QStringList& marks);
  void showMessage(const QString& text, bool problem);
  bool running_ = false;  // this dialog's job is the runner's current one

  Subject subject_;
  JobLane* runner_;
  AppSettings* settings_;
  WriteFault fault_;
  QStringList written_;
  QString writtenDir_;

  QLineEdit* folder_ = nullptr;
  QPushButton* browse_ = nullptr;
  QRadioButton* gzip_ = nullptr;
  QRadioButton* plain_ = nullptr;
  QLabel* filesLabel_ = nullptr;
  QLabel* files_ = nullptr;
  QLabel* message_ = nullptr;
  QLabel* stage_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* exportButton_ = nullptr;
  QPushButton* cancelButton_ = nullptr;
  QPushButton* showFolder_ = nullptr;
  QPushButton* closeButton_ = nullptr;
};

/// An export job's stage in words (JobLane::StageText); `complete` on the last.
JobProgress exportProgress(const JobControl& c);

}  // namespace steadyscope::app
