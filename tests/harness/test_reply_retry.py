"""The harness's retry decision (docs/decisions.md D4): which failed replies are tried again."""

from miniagent.harness.reply_retry import is_retryable


def failed(error):
    return {"role": "assistant", "stopReason": "error", "errorMessage": error}


def test_classification_of_errors():
    assert is_retryable(failed("529 Overloaded"))
    assert is_retryable(failed("520 Web server returned an unknown error"))
    assert is_retryable(failed("429 Rate limit reached for requests"))
    assert is_retryable(failed("stream ended before the response was complete"))
    assert is_retryable(failed("Connection error: could not reach http://x (connection reset)"))
    # Decision 4: a refused connection was already tried by the HTTP layer; a server
    # that is down is named at once instead of after 20 s of waiting.
    assert not is_retryable(failed("Connection error: could not reach http://x "
                                   "(connection refused)"))
    assert not is_retryable(failed("429 You exceeded your current quota, check billing"))
    assert not is_retryable(failed("400 prompt is too long: 213462 tokens > 200000 maximum"))
    assert not is_retryable(failed("401 Invalid API key"))
    assert not is_retryable(failed("400 Invalid 'max_tokens': got 500 instead"))
    assert not is_retryable(failed("503 Busy (not retried: the server said not to)"))
    assert not is_retryable(failed("The model declined to answer (stop_reason: refusal)"))
    assert not is_retryable(failed("The request was refused by the content policy"))
    assert not is_retryable({"role": "assistant", "stopReason": "aborted",
                             "errorMessage": "connection reset"})
