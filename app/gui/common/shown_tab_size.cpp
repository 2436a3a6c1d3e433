// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/shown_tab_size.h"

#include <QTabWidget>
#include <QVariant>

namespace fpx::gui {
namespace {

// Where a page's own size policy is kept while it is hidden.
constexpr const char* kOwnPolicy = "fpxOwnSizePolicy";

void askForShown(QTabWidget& tabs, int shown) {
    for (int i = 0; i < tabs.count(); ++i) {
        QWidget* page = tabs.widget(i);
        const QVariant own = page->property(kOwnPolicy);
        if (!own.isValid())
            page->setProperty(kOwnPolicy, QVariant::fromValue(page->sizePolicy()));
        const QSizePolicy policy = page->property(kOwnPolicy).value<QSizePolicy>();
        // An Ignored page adds nothing to the tab widget's size hints.
        page->setSizePolicy(i == shown ? policy
                                       : QSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored));
    }
}

} // namespace

void sizeTabsByShownPage(QTabWidget& tabs) {
    askForShown(tabs, tabs.currentIndex());
    QObject::connect(&tabs, &QTabWidget::currentChanged, &tabs,
                     [&tabs](int shown) { askForShown(tabs, shown); });
}

} // namespace fpx::gui
