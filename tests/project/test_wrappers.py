"""Our tags around foreign text: the escaping of what goes inside and into attributes."""


def test_escaping_is_xml_saxutils_to_the_byte():
    from xml.sax.saxutils import escape, quoteattr
    from miniagent.project.wrappers import escape_text, quote_attribute
    for value in ["plain", 'say "hi"', "it's", "both \" and '", "a\nb\tc\rd & <e>", "&amp;"]:
        assert quote_attribute(value) == quoteattr(value)
        assert escape_text(value) == escape(value)
