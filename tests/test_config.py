from pathlib import Path

import pytest
from helpers import REPO, write_config

from newsletter.config import (
    Config,
    FeedSource,
    FolderSource,
    HttpConfig,
    PageSource,
    SiteConfig,
    StateLocation,
    load,
)
from newsletter.config.state import masked
from newsletter.errors import ConfigError


def test_bundled_config_loads_with_paths_relative_to_it():
    config = load(REPO / "config.toml")
    assert config.sources[0].kind == "folder"
    assert config.sources[0].path == REPO / "examples" / "posts"
    assert config.archive_dir == REPO / "archive"
    assert config.state.path == REPO / "state.sqlite"


def test_every_problem_is_reported_at_once_with_its_key(tmp_path: Path):
    path = write_config(tmp_path, """
[site]
url = "ftp://example.org"
[[sources]]
name = "a"
kind = "ftp"
[[sources]]
kind = "feed"
[archive]
feed_size = 0
""")
    with pytest.raises(ConfigError) as error:
        load(path)
    lines = str(error.value).splitlines()
    assert f"{path}: site.url: must be an http(s) URL (got 'ftp://example.org')" in lines
    assert any("sources[0].kind: must be one of folder, page, feed" in line for line in lines)
    assert any("sources[1].name: is required" in line for line in lines)
    assert any("sources[1].url: is required" in line for line in lines)
    assert any("archive.feed_size: must be a positive integer" in line for line in lines)


def test_invalid_toml_names_the_file(tmp_path: Path):
    path = write_config(tmp_path, "[site\ntitle = 1")
    with pytest.raises(ConfigError, match=r"config.toml: not valid TOML"):
        load(path)


def test_missing_file_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "nope.toml")


def test_duplicate_source_names_are_refused(tmp_path: Path):
    path = write_config(tmp_path, """
[[sources]]
name = "x"
kind = "folder"
path = "a"
[[sources]]
name = "x"
kind = "folder"
path = "b"
""")
    with pytest.raises(ConfigError, match=r"sources\[1\].name: 'x' is used by another source"):
        load(path)


def test_unknown_keys_are_warned_about(tmp_path: Path, caplog):
    path = write_config(tmp_path, '[site]\ntitel = "typo"\n')
    load(path)
    assert "site.titel: unknown key, ignored" in caplog.text


def test_a_misspelt_section_is_an_error_not_an_empty_build(tmp_path: Path):
    path = write_config(tmp_path, '[[sorces]]\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"config.toml: sorces: unknown section; the sections are archive, "):
        load(path)


@pytest.mark.parametrize(("text", "line"), [
    ("schedule = 7", "schedule: must be a table"),
    ("[http]\ntimeout = nan", "http.timeout: must be a positive number of seconds"),
    ("[http]\ntimeout = inf", "http.timeout: must be a positive number of seconds"),
    ('[schedule]\ncollect = "0 * * * *"\nmisfire_grace_minutes = 100000000000',
     "schedule.misfire_grace_minutes: must be a whole number of minutes from 1 to 10080 (a week)"),
    ('[archive]\ndir = "public"\n[state]\npath = "public/state.sqlite"',
     "state.path: {tmp}/public/state.sqlite is inside archive.dir ({tmp}/public), which is published:"
     " every subscriber's address would be public"),
])
def test_values_that_once_crashed_or_ran_forever_are_one_line_errors(tmp_path: Path, text: str, line: str):
    path = write_config(tmp_path, text + "\n")
    with pytest.raises(ConfigError) as error:
        load(path)
    assert f"{path}: {line.format(tmp=tmp_path.resolve())}" in str(error.value).splitlines()


def test_publisher_keys_are_checked(tmp_path: Path):
    path = write_config(tmp_path, """
[site]
language = "en english"
[archive]
digest_feed_size = -1
""")
    with pytest.raises(ConfigError) as error:
        load(path)
    lines = str(error.value).splitlines()
    assert f"{path}: site.language: must be a language tag like \"en\" or \"pt-BR\" (got 'en english')" in lines
    assert f"{path}: archive.digest_feed_size: must be a positive integer" in lines
    good = load(write_config(tmp_path, '[site]\nlanguage = "pt-BR"\n[archive]\ndigest_feed_size = 3\n'))
    assert (good.site.language, good.digest_feed_size) == ("pt-BR", 3)


def test_the_http_section_is_optional_and_checked(tmp_path: Path):
    assert load(write_config(tmp_path, "")).http == HttpConfig()
    config = load(write_config(tmp_path, "[http]\ntimeout = 2.5\nmax_bytes = 1000\nretries = 0\nper_host = 4\n"))
    assert config.http == HttpConfig(timeout=2.5, max_bytes=1000, retries=0, per_host=4)
    path = write_config(tmp_path, '[http]\ntimeout = 0\nmax_bytes = "1 MB"\nretries = -1\nper_host = 0\n')
    with pytest.raises(ConfigError) as error:
        load(path)
    assert str(error.value).splitlines() == [
        f"{path}: http.timeout: must be a positive number of seconds",
        f"{path}: http.max_bytes: must be an integer of at least 1 (got '1 MB')",
        f"{path}: http.retries: must be an integer of at least 0 (got -1)",
        f"{path}: http.per_host: must be an integer of at least 1 (got 0)",
    ]


def test_time_budgets_and_max_posts_are_checked(tmp_path: Path):
    config = load(write_config(tmp_path, '[http]\nsource_budget = 20\nbuild_budget = 60.5\n\n[[sources]]\n'
                                         'name = "f"\nkind = "feed"\nurl = "https://a.example/feed"\nmax_posts = 7\n'))
    assert (config.http.source_budget, config.http.build_budget, config.sources[0].max_posts) == (20, 60.5, 7)
    path = write_config(tmp_path, """[http]
source_budget = nan
build_budget = -1

[[sources]]
name = "f"
kind = "feed"
url = "https://a.example/feed"
max_posts = 0

[[sources]]
name = "d"
kind = "folder"
path = "posts"
max_posts = 10
""")
    with pytest.raises(ConfigError) as error:
        load(path)
    assert str(error.value).splitlines() == [
        f"{path}: sources[0].max_posts: must be an integer of at least 1 (got 0)",
        f"{path}: sources[1].max_posts: is for feed sources",
        f"{path}: http.source_budget: must be a positive number of seconds",
        f"{path}: http.build_budget: must be a positive number of seconds",
    ]


def test_a_config_built_in_python_is_checked_like_one_read_from_toml(tmp_path):
    site = SiteConfig(title="Digest", url="https://digest.example.org/", author="Team")
    with pytest.raises(ConfigError) as error:
        Config(
            path=tmp_path / "config.toml", site=site, archive_dir=tmp_path / "archive",
            state=StateLocation(path=tmp_path / "s.sqlite"),
            sources=(FolderSource("posts", tmp_path), FeedSource("posts", "https://example.org/feed")),
            feed_size=0, templates_dir=None,
        )
    assert str(error.value).splitlines() == [
        "archive.feed_size: must be a positive integer",
        "sources.posts: is the name of another source too",
    ]
    with pytest.raises(ConfigError, match=r"^site.url: must be an http\(s\) URL \(got 'ftp://x'\)$"):
        SiteConfig(title="Digest", url="ftp://x", author="Team")
    with pytest.raises(ConfigError, match=r"^http.per_host: must be an integer of at least 1 \(got 0\)$"):
        HttpConfig(per_host=0)
    with pytest.raises(ConfigError, match=r"^sources.blog.url: must be an http\(s\) URL"):
        PageSource("blog", "file:///etc/passwd")


def test_a_source_may_name_its_project_in_one_short_line(tmp_path: Path):
    path = write_config(tmp_path, """
[[sources]]
name = "a"
kind = "folder"
path = "posts"
project = "Kite"
[[sources]]
name = "b"
kind = "feed"
url = "https://b.example.org/feed.xml"
project = "two\\nlines"
[[sources]]
name = "c"
kind = "page"
url = "https://c.example.org/"
project = 3
""")
    with pytest.raises(ConfigError) as error:
        load(path)
    lines = str(error.value).splitlines()
    assert lines == [
        f"{path}: sources[1].project: must be a project's name on one line of at most 100 characters (got 'two\\nlines')",
        f"{path}: sources[2].project: must be a project's name on one line of at most 100 characters (got 3)",
    ]
    with pytest.raises(ConfigError, match=r"^sources.x.project: must be a project's name"):
        FolderSource("x", tmp_path, project=" Kite")
    assert load(write_config(tmp_path, '[[sources]]\nname = "a"\nkind = "folder"\npath = "p"\nproject = "Kite"\n')
                ).sources[0].project == "Kite"


SECRETS_ELSEWHERE = ("secrets never live in the config: remove it, and name the environment variable"
                     " holding the password in state.password_env")


@pytest.mark.parametrize(("text", "line"), [
    ('[state]\npath = "s.sqlite"\nurl = "postgresql://news@db.example.org/news"',
     "state: set path (a SQLite file) or url (a PostgreSQL database), not both"),
    ('[state]\nurl = "postgresql://news:hunter2@db.example.org/news"',
     f"state.url: holds a password, and {SECRETS_ELSEWHERE}"),
    ('[state]\nurl = "postgresql://news@db.example.org/news?sslmode=require&password=hunter2"',
     f"state.url: holds a password in its password parameter, and {SECRETS_ELSEWHERE}"),
    ('[state]\nurl = "postgresql://news@db.example.org/news?sslpassword=hunter2&pass%77ord=hunter2"',
     f"state.url: holds a password in its sslpassword and password parameter, and {SECRETS_ELSEWHERE}"),
    ('[state]\nurl = "postgresql://news@db.example.org/news"\npassword = "hunter2"',
     f"state.password: {SECRETS_ELSEWHERE}"),
    ('[state]\nurl = "mysql://news@db.example.org/news"', "state.url: must be a postgresql:// URL (got mysql scheme)"),
    ('[state]\nurl = "postgresql://news@db.example.org/news"\npassword_env = "hunter2!"',
     "state.password_env: must be the NAME of an environment variable holding the password"
     " (like NEWSLETTER_SMTP_PASSWORD), not the password"),
    ('[state]\npassword_env = "NEWSLETTER_DB_PASSWORD"', "state.password_env: goes with state.url (a PostgreSQL database)"),
    ("[state]\nurl = 5", "state.url: must be a string"),
])
def test_a_state_on_postgresql_is_named_by_a_url_without_a_password(tmp_path: Path, text: str, line: str):
    path = write_config(tmp_path, text + "\n")
    with pytest.raises(ConfigError) as error:
        load(path)
    assert str(error.value).splitlines() == [f"{path}: {line}"]
    assert "hunter2" not in str(error.value)


def test_a_url_is_shown_with_its_password_masked_though_the_config_refuses_one():
    url = "postgresql://news:hunter2@db.example.org/news?sslpassword=hunter2&sslmode=require&password=hunter2"
    assert masked(url) == "postgresql://news:***@db.example.org/news?sslpassword=***&sslmode=require&password=***"
    safe = "postgresql://news@db.example.org/news?sslmode=require"
    assert (masked(safe), str(StateLocation(url=safe))) == (safe, safe)


def test_the_state_is_a_file_beside_the_config_or_a_postgresql_database(tmp_path: Path):
    assert load(write_config(tmp_path, "")).state == StateLocation(path=tmp_path / "state.sqlite")
    url = "postgresql://news@db.example.org:5433/news"
    config = load(write_config(tmp_path, f'[state]\nurl = "{url}"\npassword_env = "NEWSLETTER_DB_PASSWORD"\n'))
    assert config.state == StateLocation(url=url, password_env="NEWSLETTER_DB_PASSWORD")
    assert (str(config.state), config.state.path, config.output_dir) == (url, None, tmp_path)
    with pytest.raises(ConfigError, match="^state: set path"):
        StateLocation(path=tmp_path / "s.sqlite", url=url)
