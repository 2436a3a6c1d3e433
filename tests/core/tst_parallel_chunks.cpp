// SPDX-License-Identifier: GPL-3.0-or-later
// Work spread over threads: parallelChunks covers every element once, whatever the counts, and
// an exception in any thread (the caller's or a helper's) reaches the caller once every thread
// is done; the benchmark's ThreadTeam does the same for its persistent threads.
#include "fpx/exact/parallel_chunks.h"
#include "thread_team.h"

#include <QTest>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace fpx;

class TestParallelChunks : public QObject {
    Q_OBJECT

  private slots:
    void everyElementOnce_data();
    void everyElementOnce();
    void anyChunksExceptionReachesTheCaller();
    void teamRethrowsAWorkersException();
};

void TestParallelChunks::everyElementOnce_data() {
    QTest::addColumn<qulonglong>("count");
    QTest::addColumn<qulonglong>("minChunk");
    QTest::addColumn<uint>("threads");
    QTest::newRow("empty") << 0ULL << 1ULL << 0u;
    QTest::newRow("one") << 1ULL << 1ULL << 0u;
    QTest::newRow("below one chunk") << 1000ULL << 4096ULL << 0u;
    QTest::newRow("uneven") << 100'003ULL << 7ULL << 5u;
    QTest::newRow("more threads than elements") << 3ULL << 1ULL << 16u;
    QTest::newRow("minChunk 0") << 77ULL << 0ULL << 3u;
}

void TestParallelChunks::everyElementOnce() {
    QFETCH(qulonglong, count);
    QFETCH(qulonglong, minChunk);
    QFETCH(uint, threads);
    std::vector<std::atomic<int>> seen(count);
    std::atomic<int> calls{0};
    parallelChunks(count, minChunk, threads, [&](std::size_t begin, std::size_t end) {
        QVERIFY(begin <= end && end <= count);
        ++calls;
        for (std::size_t i = begin; i < end; ++i)
            ++seen[i];
    });
    for (std::size_t i = 0; i < count; ++i)
        QCOMPARE(seen[i].load(), 1);
    const std::size_t expected = chunkThreads(count, minChunk, threads);
    QCOMPARE(std::size_t(calls.load()), expected);
    if (threads > 0)
        QVERIFY(expected <= threads);
}

void TestParallelChunks::anyChunksExceptionReachesTheCaller() {
    // The last chunk runs on a helper thread, the first on the caller's: both are heard of.
    for (const bool onCaller : {true, false}) {
        std::atomic<int> finished{0};
        bool caught = false;
        try {
            parallelChunks(4000, 1000, 4, [&](std::size_t begin, std::size_t end) {
                if ((onCaller && begin == 0) || (!onCaller && end == 4000))
                    throw std::runtime_error("chunk failed");
                ++finished;
            });
        } catch (const std::runtime_error& e) {
            caught = QByteArray(e.what()) == "chunk failed";
        }
        QVERIFY(caught);
        QCOMPARE(finished.load(), 3); // the other chunks ran to the end before the rethrow
    }
}

void TestParallelChunks::teamRethrowsAWorkersException() {
    bench::ThreadTeam team(3);
    bool caught = false;
    try {
        team.run([](int index) {
            if (index == 2)
                throw std::runtime_error("worker failed");
        });
    } catch (const std::runtime_error& e) {
        caught = QByteArray(e.what()) == "worker failed";
    }
    QVERIFY(caught);
    // The team is whole after a failure: the next run starts clean and uses every thread.
    std::atomic<int> ran{0};
    team.run([&](int) { ++ran; });
    QCOMPARE(ran.load(), 3);
}

QTEST_APPLESS_MAIN(TestParallelChunks)
#include "tst_parallel_chunks.moc"
