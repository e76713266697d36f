"""(being written) nn.init"""
