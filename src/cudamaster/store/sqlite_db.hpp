// The run store's private SQLite layer (only the store's own .cpp files include this header; no
// other code sees sqlite3.h): RunStore::Impl owns the connection, Stmt is a prepared statement,
// transaction() wraps a body in BEGIN IMMEDIATE ... COMMIT.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cudamaster/store/store.hpp"

namespace cudamaster::store {

// JSON as stored in a TEXT column (null as "null").
inline std::string dump(const nlohmann::json& j) {
  return j.is_null() ? std::string("null") : j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A TEXT column's JSON; null for SQL NULL or text that is not JSON.
inline nlohmann::json parse_or_null(const unsigned char* text) {
  if (text == nullptr) return nullptr;
  nlohmann::json j = nlohmann::json::parse(reinterpret_cast<const char*>(text), nullptr, false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

struct RunStore::Impl {
  sqlite3* db = nullptr;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (db != nullptr) sqlite3_close_v2(db);
  }

  [[noreturn]] void fail(const std::string& what) const {
    // "sqlite: database disk image is malformed (step)": SQLite's words first, the call after.
    throw StoreError(std::string("sqlite: ") + (db != nullptr ? sqlite3_errmsg(db) : "no database") + " (" + what + ")");
  }

  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string msg = err != nullptr ? err : "unknown error";
      sqlite3_free(err);
      throw StoreError(std::string("sqlite: ") + msg);
    }
  }

  // A prepared statement with positional binding (1-based, in call order).
  class Stmt {
   public:
    Stmt(Impl& impl, const char* sql) : impl_(impl) {
      if (sqlite3_prepare_v2(impl.db, sql, -1, &stmt_, nullptr) != SQLITE_OK) impl.fail("prepare");
    }
    Stmt(Impl& impl, const std::string& sql) : Stmt(impl, sql.c_str()) {}
    ~Stmt() { sqlite3_finalize(stmt_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(std::int64_t v) { return check(sqlite3_bind_int64(stmt_, ++n_, v)); }
    Stmt& bind(int v) { return bind(static_cast<std::int64_t>(v)); }
    Stmt& bind(bool v) { return bind(static_cast<std::int64_t>(v ? 1 : 0)); }
    Stmt& bind(double v) { return check(sqlite3_bind_double(stmt_, ++n_, v)); }
    Stmt& bind(const std::string& v) {
      return check(sqlite3_bind_text(stmt_, ++n_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    }
    Stmt& bind(const char* v) { return bind(std::string(v)); }
    Stmt& bind(const nlohmann::json& v) { return bind(dump(v)); }
    template <class T>
    Stmt& bind(const std::optional<T>& v) {
      if (v) return bind(*v);
      return check(sqlite3_bind_null(stmt_, ++n_));
    }

    bool step() {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_ROW) return true;
      if (rc == SQLITE_DONE) return false;
      impl_.fail("step");
    }
    void run() {
      while (step()) {
      }
    }

    std::int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
    double f64(int col) const { return sqlite3_column_double(stmt_, col); }
    bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
    std::string text(int col) const {
      const unsigned char* t = sqlite3_column_text(stmt_, col);
      return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t),
                                                        static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
    }
    nlohmann::json json_col(int col) const { return parse_or_null(sqlite3_column_text(stmt_, col)); }

    // The current row as a JSON object; columns named payload/config/summary/result/flags/
    // diagnostics/request hold JSON text and are parsed (defined in export.cpp).
    nlohmann::json row_object() const;

   private:
    Stmt& check(int rc) {
      if (rc != SQLITE_OK) impl_.fail("bind");
      return *this;
    }
    Impl& impl_;
    sqlite3_stmt* stmt_ = nullptr;
    int n_ = 0;
  };

  // BEGIN IMMEDIATE ... COMMIT, rolled back when the body throws.
  template <class F>
  auto transaction(F&& body) {
    exec("BEGIN IMMEDIATE");
    try {
      auto r = body();
      exec("COMMIT");
      return r;
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  std::int64_t last_id() const { return sqlite3_last_insert_rowid(db); }
};

}  // namespace cudamaster::store
