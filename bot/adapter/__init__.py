"""The Discord adapter: the outbox (:mod:`bot.adapter.outbox`, the only path from a commit to
Discord), the component items (:mod:`bot.adapter.items`) and what a click, a pick or a typed
choice does (:mod:`bot.adapter.act`), with the answers to users and the central error report
(:mod:`bot.adapter.answer`).

It sits below the cogs (:mod:`bot.exts`) and below the app (:mod:`bot.app`), which builds it:
it never names the app's class, not even for type checking, and sees the bot only through the
few things it needs (:class:`bot.adapter.port.App`). So the imports point one way, with no
circle at any level: app and cogs -> adapter -> table -> games -> host.
"""
