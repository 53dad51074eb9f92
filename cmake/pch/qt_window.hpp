// Precompiled for the window code (widgets/, app/gui/): the Qt headers most of
// its files include, parsed once per target instead of once per file (D-070).
// Kept to those: a header of whole modules is larger to load than to parse.
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QObject>
#include <QPainter>
#include <QPushButton>
#include <QString>
#include <QStringList>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QWidget>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
