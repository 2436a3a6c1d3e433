// SPDX-License-Identifier: GPL-3.0-or-later
// .npy arrays with no elements (a zero in the shape), a case of the npy fuzz target: the
// empty value vector's data() may be null, which memcpy must not be given (undefined
// behaviour that UndefinedBehaviorSanitizer stops on). They read as empty arrays of their shape.
#include "fpx/data/npy_reader.h"

#include <QTest>

#include <cstdint>
#include <string>
#include <string_view>

using namespace fpx;

namespace {

// A version 1.0 .npy file: magic, header length, the header padded with blanks to a multiple of
// 64 bytes and ended by '\n', then `data`.
std::string npyFile(const std::string& dict, const std::string& data) {
    std::string header = dict;
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    std::string file("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(header.size() & 0xff);
    file += static_cast<char>(header.size() >> 8);
    return file + header + data;
}

} // namespace

class TestEmptyNpy : public QObject {
    Q_OBJECT

  private slots:
    void emptyArraysReadAsEmpty_data() {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("rows");
        QTest::newRow("<f4 (0, 2), the fuzzer's input") << "<f4"
                                                        << "(0, 2)" << 0;
        QTest::newRow("<f8 (0,)") << "<f8"
                                  << "(0,)" << 0;
        QTest::newRow("<f2 (3, 0)") << "<f2"
                                    << "(3, 0)" << 3;
    }
    void emptyArraysReadAsEmpty() {
        QFETCH(QString, dtype);
        QFETCH(QString, shape);
        QFETCH(int, rows);
        // Trailing bytes after the (empty) data, as in the fuzzer's input.
        const std::string file =
            npyFile("{'descr': '" + dtype.toStdString() +
                        "', 'fortran_order': False, 'shape': " + shape.toStdString() + ", }",
                    std::string("\x00\x00\x80\x3f", 4));
        const NpyReadResult result = parseNpy(file, "empty.npy");
        QVERIFY2(result.array.has_value(), result.error.c_str());
        QCOMPARE(result.array->elementCount(), std::size_t{0});
        QVERIFY(result.array->values.empty());
        QCOMPARE(result.array->shape.size(), static_cast<std::size_t>(shape == "(0,)" ? 1 : 2));
        QCOMPARE(result.array->shape.front(), static_cast<std::size_t>(rows));
    }
};

QTEST_GUILESS_MAIN(TestEmptyNpy)
#include "tst_empty_npy.moc"
