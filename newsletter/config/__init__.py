"""The configuration: its types (model), the rules they follow (rules), and the reader of
config.toml (reader)."""

from newsletter.config.model import (
    SMTP_PORTS,
    SOURCE_KINDS,
    Config,
    EmailConfig,
    FeedSource,
    FolderSource,
    HttpConfig,
    PageSource,
    ScheduleConfig,
    SiteConfig,
    SmtpSecurity,
    SourceConfig,
    SourceKind,
    WebConfig,
)
from newsletter.config.reader import address_lines, load, parse_address
from newsletter.config.state import StateLocation

__all__ = [
    "SMTP_PORTS", "SOURCE_KINDS", "Config", "EmailConfig", "FeedSource", "FolderSource", "HttpConfig",
    "PageSource", "ScheduleConfig", "SiteConfig", "SmtpSecurity", "SourceConfig", "SourceKind",
    "StateLocation", "WebConfig", "address_lines", "load", "parse_address",
]
