#include <doctest/doctest.h>

#include "decide/job_hosts.h"

using namespace megatriage;

TEST_SUITE("job_hosts") {
TEST_CASE("job_hosts: the first host named for a rank stays; localhost and garbled ranks name none") {
  const std::string a = "node1", b = "node2", local = "localhost";
  HostsByRank hosts;
  hosts.add(3, a);
  hosts.add(3, b);
  hosts.add(4, local);
  hosts.add(1 << 30, a);
  hosts.add(-1, a);
  REQUIRE(hosts.find(3) != nullptr);
  CHECK(*hosts.find(3) == "node1");
  CHECK(hosts.find(4) == nullptr);
  CHECK(hosts.find(1 << 30) == nullptr);
  CHECK(hosts.find(-1) == nullptr);
  CHECK(hosts.find(99) == nullptr);
}

TEST_CASE("job_hosts: a failure table's row gives its rank the launcher's host; a task id its own") {
  FileResult file;
  Event table;
  table.kind = EventKind::ChildFailure;
  table.who.host = "node7";
  table.child->rank = 12;
  Event task_line;
  task_line.who.task = 2;
  task_line.who.host = "node3";
  file.events = {table, task_line};
  std::vector<TimelineEntry> timeline{{&file.events[0], &file, std::nullopt}, {&file.events[1], &file, std::nullopt}};
  const JobHosts hosts = hosts_of_ranks(timeline, std::nullopt);
  Attribution rank12;
  rank12.rank = 12;
  REQUIRE(hosts.find(rank12) != nullptr);
  CHECK(*hosts.find(rank12) == "node7");
  Attribution task2;
  task2.task = 2;
  REQUIRE(hosts.find(task2) != nullptr);
  CHECK(*hosts.find(task2) == "node3");
}
}
