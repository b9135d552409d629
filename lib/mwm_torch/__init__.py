"""mwm_torch: the course's PyTorch models, kept out of the numpy package ``mwm``.

* :mod:`mwm_torch.charlm`       the character language model of chapter 5 (``CharRNN``)
* :mod:`mwm_torch.memory_task`  chapter 9's memory task (``Reader``, ``sentences``, ``starting_gradient_ratio``)
* :mod:`mwm_torch.translator`   the encoder-decoder of chapters 12 and 14 (``Seq2Seq``)

The training scripts in ``scripts/`` build their models from here and the tests check
them against ``mwm``. Install with the ``torch`` extra: ``pip install -e "lib[torch]"``.
"""
